"""Recovery planners (one strategy per recovery mode) and the shared plan executor.

A plan is a tuple of ``PlanItem``s; the executor does not know which planner made it.
"""

from __future__ import annotations

import time
from typing import NamedTuple

from vllm.v1.request import RequestStatus


class PlanItem(NamedTuple):
    verb: str  # "evict" | "abort" | "preempt" | "zero_counters"
    args: tuple


def tail_of(scheduler, req) -> tuple[int, ...]:
    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
    ids: list[int] = []
    for mgr in scheduler.kv_cache_manager.coordinator.single_type_managers:
        held = mgr.req_to_blocks.get(req.request_id, [])
        ids += [b.block_id for b in held[confirmed // mgr.block_size :] if not b.is_null]
    return tuple(ids)


class ResumePlanner:
    """Requests come back: evict their unconfirmed tail so that the re-prefill does
    not hit garbage, then requeue them with the lost step forgotten."""

    def plan(self, scheduler) -> tuple[PlanItem, ...]:
        running = list(scheduler.running)
        items = [PlanItem("evict", tail_of(scheduler, r)) for r in running]
        for r in reversed(running):
            items.append(PlanItem("preempt", (r.request_id,)))
            items.append(PlanItem("zero_counters", (r.request_id,)))
        return tuple(items)


class AbortPlanner:
    """Requests are finished: their blocks go back to the pool and no one resumes
    them, so there is nothing to invalidate."""

    def plan(self, scheduler) -> tuple[PlanItem, ...]:
        ids = tuple(r.request_id for r in scheduler.running)
        return (PlanItem("abort", ids),) if ids else ()


def execute(engine, plan: tuple[PlanItem, ...]) -> None:
    sched = engine.scheduler
    now = time.monotonic()
    for item in plan:
        if item.verb == "evict":
            if item.args:
                sched.kv_cache_manager.evict_blocks(set(item.args))
        elif item.verb == "abort":
            engine._send_abort_outputs(sched.finish_requests(list(item.args), RequestStatus.FINISHED_ABORTED))
        elif item.verb == "preempt":
            req = sched.requests[item.args[0]]
            sched.running.remove(req)
            sched._preempt_request(req, now)
        elif item.verb == "zero_counters":
            req = sched.requests[item.args[0]]
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
        else:
            raise ValueError(item.verb)
