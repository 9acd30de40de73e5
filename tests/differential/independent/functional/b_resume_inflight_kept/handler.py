# Intended: buggy: on the resume path it clears the stale-output counter after the preempt but leaves num_in_flight_tokens set, so the requeued request's confirmed boundary is off by the lost step.
# Idioms: frozen dataclass with dataclasses.replace to derive the per-path plan, dispatch through a dict of functions, nested generator expression, abort/resume switch.
# switch: resume
from __future__ import annotations

import time
from dataclasses import dataclass, replace

from vllm.v1.request import RequestStatus


@dataclass(frozen=True)
class Plan:
    requests: tuple = ()
    evict: frozenset = frozenset()
    mode: str = "abort"


def base_plan(scheduler) -> Plan:
    reqs = tuple(scheduler.running)
    managers = scheduler.kv_cache_manager.coordinator.single_type_managers
    evict = frozenset(
        b.block_id
        for r in reqs
        for m in managers
        for b in m.req_to_blocks.get(r.request_id, ())[
            max(r.num_computed_tokens - r.num_in_flight_tokens, 0) // m.block_size:
        ]
        if not b.is_null
    )
    return Plan(reqs, evict)


def _abort(engine, plan: Plan) -> None:
    ids = [r.request_id for r in plan.requests]
    engine._send_abort_outputs(engine.scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED))


def _requeue(engine, plan: Plan) -> None:
    sched = engine.scheduler
    sched.running = [r for r in sched.running if r not in plan.requests]
    ts = time.monotonic()
    for r in reversed(plan.requests):
        sched._preempt_request(r, ts)
        r.num_stale_output_tokens = 0  # nothing stale will ever arrive: don't wait for it


_FINISH = {"abort": _abort, "resume": _requeue}


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        plan = replace(base_plan(self.engine.scheduler), mode="resume" if self.resume else "abort")
        self.engine.scheduler.kv_cache_manager.evict_blocks(set(plan.evict))
        _FINISH[plan.mode](self.engine, plan)
