# Intended: correct.
# Evicts only the full blocks of the unconfirmed window, `range(confirmed // bs, computed // bs)`, since the trailing partial block is never hashed; preempts with `reversed(...)` and resets the counters.
# switch: resume_enabled
from __future__ import annotations

import time

from vllm.v1.request import Request, RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.resume_enabled = bool(getattr(engine, "enable_fault_resume", False))

    def _evict_dirty_tail(self, request: Request) -> None:
        kv_cache_manager = self.engine.scheduler.kv_cache_manager
        num_computed = request.num_computed_tokens
        num_confirmed = num_computed - request.num_in_flight_tokens
        dirty_block_ids = set()
        for manager in kv_cache_manager.coordinator.single_type_managers:
            bs = manager.block_size
            blocks = manager.req_to_blocks.get(request.request_id) or []
            # Only full blocks are ever cached (hashed); the partial block
            # past num_computed // bs cannot be hit by anyone.
            for i in range(num_confirmed // bs, min(num_computed // bs, len(blocks))):
                if not blocks[i].is_null:
                    dirty_block_ids.add(blocks[i].block_id)
        if dirty_block_ids:
            kv_cache_manager.evict_blocks(dirty_block_ids)

    def _preempt_for_resume(self, request: Request, timestamp: float) -> None:
        scheduler = self.engine.scheduler
        scheduler._preempt_request(request, timestamp)
        request.num_stale_output_tokens = 0
        request.num_in_flight_tokens = 0

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        for request in scheduler.running:
            self._evict_dirty_tail(request)

        if self.resume_enabled:
            timestamp = time.monotonic()
            preempted = list(reversed(scheduler.running))
            scheduler.running.clear()
            for request in preempted:
                self._preempt_for_resume(request, timestamp)
        else:
            aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
