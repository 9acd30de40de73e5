# Intended: buggy: on resume only num_stale_output_tokens is reset after the preempt; num_in_flight_tokens keeps the lost step's count, so the requeued request's confirmed boundary is off.
# Idioms: sorted with operator.attrgetter, tuple unpacking over zip, per-request helper returning a set, resume-only.
"""Resume handler that requeues the oldest requests first."""

from __future__ import annotations

import time
from operator import attrgetter


def _dirty_tail(managers, request) -> set[int]:
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    return {
        blk.block_id
        for mgr in managers
        for blk in mgr.req_to_blocks[request.request_id][confirmed // mgr.block_size :]
    }


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        # Newest first: _preempt_request prepends, so the oldest ends up at the head.
        order = sorted(sched.running, key=attrgetter("arrival_time"), reverse=True)
        tails = [_dirty_tail(managers, req) for req in order]
        kv.evict_blocks(set().union(*tails))
        sched.running = []
        ts = time.monotonic()
        for req, _tail in zip(order, tails):
            sched._preempt_request(req, ts)
            req.num_stale_output_tokens = 0
