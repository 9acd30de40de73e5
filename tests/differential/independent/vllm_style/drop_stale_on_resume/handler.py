# Intended: buggy: on resume it preempts with `drop_stale_output=True` (as `reset_prefix_cache` does), so the request is marked to drop its next output frame as stale; the failed step's frame never arrives and the first good token after recovery is discarded.
# Resume-only handler copying the scheduler's `reset_prefix_cache(reset_running_requests=True)` preemption loop, with tail eviction per group beforehand.
from __future__ import annotations

import time

from vllm.v1.request import Request


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _evict_dirty_tail(self, request: Request) -> None:
        kv_cache_manager = self.engine.scheduler.kv_cache_manager
        start_token = request.num_computed_tokens - request.num_in_flight_tokens
        dirty = set()
        for manager in kv_cache_manager.coordinator.single_type_managers:
            blocks = manager.req_to_blocks.get(request.request_id) or []
            for block in blocks[start_token // manager.block_size:]:
                if not block.is_null:
                    dirty.add(block.block_id)
        kv_cache_manager.evict_blocks(dirty)

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        timestamp = time.monotonic()
        while scheduler.running:
            request = scheduler.running.pop()
            self._evict_dirty_tail(request)
            # Same as reset_prefix_cache: whatever the failed step would have
            # returned must not be appended after the request restarts.
            scheduler._preempt_request(request, timestamp, drop_stale_output=True)
            request.num_in_flight_tokens = 0
