# Intended: correct.
# Per-request loop over `list(self.scheduler.running)` that evicts the tail, then zeroes `num_in_flight_tokens` *before* `_preempt_request` so the copied stale count is already zero.
# switch: enable_resume
from __future__ import annotations

import time

from vllm.v1.request import Request, RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.scheduler = engine.scheduler
        self.enable_resume = True

    def _evict_dirty_tail(self, request: Request) -> None:
        kv_cache_manager = self.scheduler.kv_cache_manager
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        to_evict = set()
        for mgr in kv_cache_manager.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(request.request_id, ())
            for idx in range(confirmed // mgr.block_size, len(blocks)):
                to_evict.add(blocks[idx].block_id)
        kv_cache_manager.evict_blocks(to_evict)

    def _resume_request(self, request: Request, timestamp: float) -> None:
        self._evict_dirty_tail(request)
        # _preempt_request copies num_in_flight_tokens into
        # num_stale_output_tokens; the lost frame will never drain it, so clear
        # it first and the copy is zero as well.
        request.num_in_flight_tokens = 0
        self.scheduler.running.remove(request)
        self.scheduler._preempt_request(request, timestamp)

    def on_fault(self, exc: BaseException) -> None:
        self.scheduler = self.engine.scheduler
        if not self.enable_resume:
            for request in list(self.scheduler.running):
                self._evict_dirty_tail(request)
            aborted = self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return

        timestamp = time.monotonic()
        for request in reversed(list(self.scheduler.running)):
            if request.status == RequestStatus.RUNNING:
                self._resume_request(request, timestamp)
