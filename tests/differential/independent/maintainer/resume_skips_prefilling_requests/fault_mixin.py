from __future__ import annotations

import time
from typing import Any

from vllm.v1.request import Request


class FaultRecoveryMixin:
    """Scheduler-side recovery from a failed step. Needs ``self.engine``."""

    engine: Any

    def _evict_unconfirmed_tails(self) -> None:
        scheduler = self.engine.scheduler
        kv_cache_manager = scheduler.kv_cache_manager
        block_ids: set[int] = set()
        for request in scheduler.running:
            if request.num_output_tokens == 0:
                # Still in prefill: no step of it has completed yet.
                continue
            block_ids.update(self._unconfirmed_block_ids(request))
        if block_ids:
            kv_cache_manager.evict_blocks(block_ids)

    def _unconfirmed_block_ids(self, request: Request) -> list[int]:
        coordinator = self.engine.scheduler.kv_cache_manager.coordinator
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        block_ids: list[int] = []
        for manager in coordinator.single_type_managers:
            blocks = manager.req_to_blocks[request.request_id]
            block_ids.extend(b.block_id for b in blocks[num_confirmed // manager.block_size :])
        return block_ids

    def _preempt_running_requests(self) -> int:
        scheduler = self.engine.scheduler
        timestamp = time.monotonic()
        num_preempted = 0
        while scheduler.running:
            request = scheduler.running.pop()
            scheduler._preempt_request(request, timestamp)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
            num_preempted += 1
        return num_preempted
