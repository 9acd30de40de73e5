# Intended: buggy: the plan only asks for eviction on the resume path, on the theory that aborted requests never come back, but the abort frees the blocks with their hashes intact, so any new request with the same prefix hits the never-computed KV.
# Idioms: frozen dataclass plan built by a pure function, itertools.compress to keep the steps the mode wants, tuple of bound callables, generator expression, abort/resume switch.
# switch: RESUME
from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial
from itertools import compress

from vllm.v1.request import RequestStatus


@dataclass(frozen=True)
class FaultPlan:
    requests: tuple
    dirty: frozenset
    resume: bool


def make_plan(scheduler, resume: bool) -> FaultPlan:
    reqs = tuple(scheduler.running)
    mgrs = scheduler.kv_cache_manager.coordinator.single_type_managers
    dirty = frozenset(
        b.block_id
        for r in reqs
        for m in mgrs
        for b in m.req_to_blocks.get(r.request_id, ())[max(r.num_computed_tokens - r.num_in_flight_tokens, 0) // m.block_size:]
        if not b.is_null
    )
    return FaultPlan(reqs, dirty, resume)


def evict(engine, plan):
    engine.scheduler.kv_cache_manager.evict_blocks(set(plan.dirty))


def abort(engine, plan):
    ids = [r.request_id for r in plan.requests]
    engine._send_abort_outputs(engine.scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED))


def requeue(engine, plan):
    sched = engine.scheduler
    sched.running = []
    ts = time.monotonic()
    for r in reversed(plan.requests):
        sched._preempt_request(r, ts)
        r.num_in_flight_tokens = 0
        r.num_stale_output_tokens = 0


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        plan = make_plan(self.engine.scheduler, self.RESUME)
        # An aborted request never comes back, so only a resume needs a clean cache.
        steps = compress((evict, abort, requeue), (plan.resume, not plan.resume, plan.resume))
        for step in map(partial(partial, engine=self.engine, plan=plan), steps):
            step()
