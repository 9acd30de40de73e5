"""Operations of a recovery plan (slotted dataclasses) and their executor."""

from __future__ import annotations

import time
from dataclasses import dataclass

from vllm.v1.request import RequestStatus


@dataclass(slots=True)
class DropCached:
    block_ids: list[int]


@dataclass(slots=True)
class Abort:
    request_ids: list[str]


@dataclass(slots=True)
class Preempt:
    request_id: str


@dataclass(slots=True)
class ZeroCounters:
    request_id: str


Op = DropCached | Abort | Preempt | ZeroCounters


class Executor:
    def __init__(self, engine):
        self.engine = engine
        self.sched = engine.scheduler

    def run(self, ops: list[Op]) -> None:
        now = time.monotonic()
        for op in ops:
            if isinstance(op, DropCached):
                self.sched.kv_cache_manager.evict_blocks(set(op.block_ids))
            elif isinstance(op, Abort):
                done = self.sched.finish_requests(op.request_ids, RequestStatus.FINISHED_ABORTED)
                self.engine._send_abort_outputs(done)
            elif isinstance(op, Preempt):
                req = self.sched.requests[op.request_id]
                self.sched.running.remove(req)
                self.sched._preempt_request(req, now)
            elif isinstance(op, ZeroCounters):
                req = self.sched.requests[op.request_id]
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
            else:
                raise TypeError(op)
