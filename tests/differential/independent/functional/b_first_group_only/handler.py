# Intended: buggy: it takes only the first KV-cache manager (islice(..., 1)), so with a hybrid model the sliding-window group keeps its dirty tail blocks in the prefix cache.
# Idioms: itertools.islice, NamedTuple plan, generator expressions, frozenset union, abort/resume switch.
# switch: RESUME
from __future__ import annotations

import time
from itertools import islice
from typing import NamedTuple

from vllm.v1.request import RequestStatus


class Plan(NamedTuple):
    requests: tuple
    evict: frozenset


def _tail_ids(request, manager):
    start = max(request.num_computed_tokens - request.num_in_flight_tokens, 0) // manager.block_size
    return frozenset(b.block_id for b in manager.req_to_blocks.get(request.request_id, ())[start:]
                     if not b.is_null)


def plan_for(scheduler) -> Plan:
    requests = tuple(scheduler.running)
    # The full-attention manager owns the block table the tail lives in.
    managers = tuple(islice(scheduler.kv_cache_manager.coordinator.single_type_managers, 1))
    return Plan(requests, frozenset().union(*(_tail_ids(r, m) for r in requests for m in managers)))


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        plan = plan_for(sched)
        sched.kv_cache_manager.evict_blocks(set(plan.evict))
        if not self.RESUME:
            ids = [r.request_id for r in plan.requests]
            self.engine._send_abort_outputs(sched.finish_requests(ids, RequestStatus.FINISHED_ABORTED))
            return
        sched.running = []
        ts = time.monotonic()
        for req in reversed(plan.requests):
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
