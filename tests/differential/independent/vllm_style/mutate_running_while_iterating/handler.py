# Intended: buggy: it removes requests from `scheduler.running` while iterating that same list, so every second running request is skipped: it is neither evicted nor preempted, and its unconfirmed tail stays cached.
# Resume-only handler that preempts each running request through a scheduler-style helper with tail eviction and counter reset.
from __future__ import annotations

import time

from vllm.v1.request import Request, RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _evict_dirty_tail(self, request: Request) -> None:
        kv_cache_manager = self.engine.scheduler.kv_cache_manager
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        dirty = set()
        for manager in kv_cache_manager.coordinator.single_type_managers:
            blocks = manager.req_to_blocks.get(request.request_id) or []
            dirty.update(b.block_id for b in blocks[num_confirmed // manager.block_size:])
        kv_cache_manager.evict_blocks(dirty)

    def _preempt_for_recovery(self, request: Request, timestamp: float) -> None:
        scheduler = self.engine.scheduler
        self._evict_dirty_tail(request)
        scheduler.running.remove(request)
        scheduler._preempt_request(request, timestamp)
        request.num_in_flight_tokens = 0
        request.num_stale_output_tokens = 0

    def on_fault(self, exc: BaseException) -> None:
        timestamp = time.monotonic()
        for request in self.engine.scheduler.running:
            if request.status == RequestStatus.RUNNING:
                self._preempt_for_recovery(request, timestamp)
