# Intended: correct.
# Records the block-aligned tail for KV zeroing when the model needs it and evicts that tail in every group, both before `_preempt_request` / `finish_requests`; the `needs_kv_cache_zeroing` scheduler attribute is read as vLLM does.
# switch: resume
from __future__ import annotations

import time

from vllm.v1.request import Request, RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.resume = False

    def _scrub_unconfirmed_kv(self, request: Request) -> None:
        scheduler = self.engine.scheduler
        kv_cache_manager = scheduler.kv_cache_manager
        managers = kv_cache_manager.coordinator.single_type_managers
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        if scheduler.needs_kv_cache_zeroing:
            # record_blocks_for_zeroing wants a token index aligned to every
            # group's block size.
            block_size = max(m.block_size for m in managers)
            kv_cache_manager.record_blocks_for_zeroing(
                request.request_id, num_confirmed // block_size * block_size
            )
        dirty: set[int] = set()
        for manager in managers:
            blocks = manager.req_to_blocks.get(request.request_id) or []
            dirty.update(
                b.block_id for b in blocks[num_confirmed // manager.block_size:]
            )
        kv_cache_manager.evict_blocks(dirty)

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        running = list(scheduler.running)
        for request in running:
            self._scrub_unconfirmed_kv(request)
        if not self.resume:
            aborted = scheduler.finish_requests(
                [r.request_id for r in running], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(aborted)
            return
        scheduler.running = []
        now = time.monotonic()
        for request in reversed(running):
            scheduler._preempt_request(request, now)
            request.num_stale_output_tokens = 0
            request.num_in_flight_tokens = 0
