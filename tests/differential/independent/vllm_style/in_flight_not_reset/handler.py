# Intended: buggy: after `_preempt_request` it clears `num_stale_output_tokens` but leaves `num_in_flight_tokens` set, so the resumed request's confirmed boundary (num_computed_tokens - num_in_flight_tokens) is off by the lost step.
# Switch-controlled handler with a `_free_request`-like `_requeue_request(request, timestamp)` helper mirroring `Scheduler._preempt_request`'s docstring conventions.
# switch: requeue_on_fault
from __future__ import annotations

import time

from vllm.v1.request import Request, RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.requeue_on_fault = True

    def _evict_dirty_tail(self, request: Request) -> None:
        kv_cache_manager = self.engine.scheduler.kv_cache_manager
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        blocks_to_evict: set[int] = set()
        for manager in kv_cache_manager.coordinator.single_type_managers:
            blocks = manager.req_to_blocks.get(request.request_id) or []
            blocks_to_evict.update(
                blk.block_id for blk in blocks[num_confirmed // manager.block_size:]
            )
        kv_cache_manager.evict_blocks(blocks_to_evict)

    def _requeue_request(self, request: Request, timestamp: float) -> None:
        """Put a running request back to the waiting queue after a fault.

        NOTE: The request should be popped from the running queue outside of
        this method.
        """
        assert request.status == RequestStatus.RUNNING
        self._evict_dirty_tail(request)
        self.engine.scheduler._preempt_request(request, timestamp)
        # The failed step's frame is lost: nothing stale will ever drain.
        request.num_stale_output_tokens = 0

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        if not self.requeue_on_fault:
            for request in scheduler.running:
                self._evict_dirty_tail(request)
            aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        timestamp = time.monotonic()
        while scheduler.running:
            self._requeue_request(scheduler.running.pop(), timestamp)
