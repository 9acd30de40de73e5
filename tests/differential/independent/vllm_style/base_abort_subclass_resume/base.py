"""Shared pieces of the engine-core fault handlers."""
from __future__ import annotations

import time

from vllm.v1.request import Request, RequestStatus


class BaseFaultHandler:
    """Abort-everything handler; subclasses may resume instead."""

    def __init__(self, engine):
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    def _evict_dirty_tail(self, request: Request) -> None:
        """Drop from the prefix cache the blocks of the tokens the failed step
        computed, in every KV-cache group: [computed - in_flight, computed)."""
        kv_cache_manager = self.scheduler.kv_cache_manager
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        block_ids: set[int] = set()
        for manager in kv_cache_manager.coordinator.single_type_managers:
            blocks = manager.req_to_blocks.get(request.request_id) or []
            block_ids.update(
                block.block_id
                for block in blocks[num_confirmed // manager.block_size:]
                if not block.is_null
            )
        if block_ids:
            kv_cache_manager.evict_blocks(block_ids)

    def _timestamp(self) -> float:
        return time.monotonic()

    def on_fault(self, exc: BaseException) -> None:
        for request in list(self.scheduler.running):
            self._evict_dirty_tail(request)
        aborted = self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
