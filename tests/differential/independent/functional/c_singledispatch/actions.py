"""Fault-recovery actions as plain data, plus the one interpreter that runs them."""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import singledispatch

from vllm.v1.request import RequestStatus


@dataclass(frozen=True)
class Evict:
    block_ids: frozenset[int]


@dataclass(frozen=True)
class Abort:
    request_ids: tuple[str, ...]


@dataclass(frozen=True)
class Requeue:
    request_ids: tuple[str, ...]


@singledispatch
def perform(action, engine) -> None:
    raise TypeError(f"unknown recovery action {action!r}")


@perform.register
def _(action: Evict, engine) -> None:
    if action.block_ids:
        engine.scheduler.kv_cache_manager.evict_blocks(set(action.block_ids))


@perform.register
def _(action: Abort, engine) -> None:
    done = engine.scheduler.finish_requests(action.request_ids, RequestStatus.FINISHED_ABORTED)
    engine._send_abort_outputs(done)


@perform.register
def _(action: Requeue, engine) -> None:
    sched = engine.scheduler
    wanted = frozenset(action.request_ids)
    chosen = [r for r in sched.running if r.request_id in wanted]
    sched.running = [r for r in sched.running if r.request_id not in wanted]
    ts = time.monotonic()
    for req in reversed(chosen):
        sched._preempt_request(req, ts)
        req.num_in_flight_tokens = 0
        req.num_stale_output_tokens = 0
