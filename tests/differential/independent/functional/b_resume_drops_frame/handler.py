# Intended: buggy: on the resume path it preempts with drop_stale_output=True, but the failed step's output frame never arrives, so the first good frame after the resume is the one that gets dropped.
# Idioms: functools.partial to pre-bind keyword arguments in a helper module, itertools.product + starmap to build the eviction set, NamedTuple plan, abort/resume switch.
# switch: RESUME_REQUESTS
from __future__ import annotations

from itertools import product, starmap
from typing import NamedTuple

from vllm.v1.request import RequestStatus

from requeue import requeue_dropping_stale


class Plan(NamedTuple):
    requests: list
    evict: set


def _tail(request, manager):
    first = max(request.num_computed_tokens - request.num_in_flight_tokens, 0) // manager.block_size
    return {b.block_id for b in manager.req_to_blocks.get(request.request_id, ())[first:] if not b.is_null}


def make_plan(scheduler) -> Plan:
    requests = list(scheduler.running)
    managers = scheduler.kv_cache_manager.coordinator.single_type_managers
    return Plan(requests, set().union(*starmap(_tail, product(requests, managers))))


class FaultHandler:
    RESUME_REQUESTS = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        plan = make_plan(sched)
        sched.kv_cache_manager.evict_blocks(plan.evict)
        if self.RESUME_REQUESTS:
            requeue_dropping_stale(sched, plan.requests)
        else:
            aborted = sched.finish_requests([r.request_id for r in plan.requests],
                                            RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
