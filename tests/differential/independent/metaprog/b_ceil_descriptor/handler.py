# Intended: buggy: the first block to evict is found by rounding the confirmed boundary up instead of down, so the block that holds the boundary (partly confirmed, partly written by the lost step) stays in the prefix cache after a failed decode step.
# Idioms: descriptors with __set_name__ that build counter attribute names with f-strings, a property for the boundary, getattr/setattr through the descriptors.
# switch: RESUME
"""Fault handler reading request counters through descriptor-built spans."""

from __future__ import annotations

import time

from vllm.v1.request import RequestStatus

from spans import BlockSpan


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        spans = [BlockSpan(r) for r in sched.running]
        ids = set()
        for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
            for span in spans:
                held = mgr.req_to_blocks.get(span.request.request_id, [])
                ids.update(b.block_id for b in held[span.first_unconfirmed_block(mgr.block_size) :] if not b.is_null)
        if ids:
            sched.kv_cache_manager.evict_blocks(ids)
        if self.RESUME:
            stamp = time.monotonic()
            for span in reversed(spans):
                sched.running.remove(span.request)
                sched._preempt_request(span.request, stamp)
                span.in_flight = 0
                span.stale_output = 0
        elif spans:
            aborted = sched.finish_requests([s.request.request_id for s in spans], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
