# Intended: buggy: the eviction starts at `num_computed_tokens // block_size`, ignoring `num_in_flight_tokens`, so the blocks the failed step filled (below num_computed_tokens) are never evicted.
# Per-request `_evict_dirty_tail` over `list(self.scheduler.running)` with per-group block sizes and a resume/abort switch.
# switch: resume
from __future__ import annotations

import time

from vllm.v1.request import Request, RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.resume = False

    def _evict_dirty_tail(self, request: Request) -> None:
        kv_cache_manager = self.engine.scheduler.kv_cache_manager
        dirty: set[int] = set()
        for manager in kv_cache_manager.coordinator.single_type_managers:
            blocks = manager.req_to_blocks.get(request.request_id) or []
            # Everything from the block holding the last computed token on
            # belongs to the step that failed.
            first = request.num_computed_tokens // manager.block_size
            dirty.update(b.block_id for b in blocks[first:] if not b.is_null)
        kv_cache_manager.evict_blocks(dirty)

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        for request in list(scheduler.running):
            self._evict_dirty_tail(request)
        if self.resume:
            timestamp = time.monotonic()
            for request in reversed(list(scheduler.running)):
                scheduler.running.remove(request)
                scheduler._preempt_request(request, timestamp)
                request.num_in_flight_tokens = 0
                request.num_stale_output_tokens = 0
        else:
            aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
