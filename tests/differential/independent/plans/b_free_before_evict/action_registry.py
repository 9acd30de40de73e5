"""A registry of recovery action kinds.

Each kind registers an executor function and a priority; a plan is a list of
``(kind, request_id)`` pairs that ``run_plan`` sorts by priority, so planners need
not care about ordering.  Executors look the request up when they run, so a plan
stays valid however long it was kept around.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from vllm.v1.request import RequestStatus

_EXECUTORS: dict[str, tuple[int, Callable]] = {}


def action(kind: str, priority: int):
    def register(fn):
        _EXECUTORS[kind] = (priority, fn)
        return fn

    return register


@action("release", priority=0)  # free blocks first so the pool has room again
def _release(engine, request_id: str, *, requeue: bool) -> None:
    sched = engine.scheduler
    req = sched.requests.get(request_id)
    if req is None:
        return
    if requeue:
        sched.running.remove(req)
        sched._preempt_request(req, time.monotonic())
    else:
        engine._send_abort_outputs(sched.finish_requests(request_id, RequestStatus.FINISHED_ABORTED))


@action("invalidate", priority=1)
def _invalidate(engine, request_id: str, *, confirmed: int, **_) -> None:
    kv = engine.scheduler.kv_cache_manager
    ids: set[int] = set()
    for mgr in kv.coordinator.single_type_managers:
        blocks = mgr.req_to_blocks.get(request_id, [])
        ids.update(b.block_id for b in blocks[confirmed // mgr.block_size :] if not b.is_null)
    if ids:
        kv.evict_blocks(ids)


@action("reset_counters", priority=2)
def _reset(engine, request_id: str, **_) -> None:
    req = engine.scheduler.requests.get(request_id)
    if req is not None:
        req.num_in_flight_tokens = 0
        req.num_stale_output_tokens = 0


def run_plan(engine, plan: list[tuple[str, str, dict]]) -> None:
    for kind, request_id, kwargs in sorted(plan, key=lambda p: _EXECUTORS[p[0]][0]):
        _EXECUTORS[kind][1](engine, request_id, **kwargs)
