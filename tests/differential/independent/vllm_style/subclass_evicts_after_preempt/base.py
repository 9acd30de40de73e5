"""Base engine-core fault handler: evict the lost step's KV, then abort."""
from __future__ import annotations

from vllm.v1.request import Request, RequestStatus


class BaseFaultHandler:
    def __init__(self, engine):
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    def _evict_dirty_tail(self, request: Request) -> None:
        kv_cache_manager = self.scheduler.kv_cache_manager
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        dirty: set[int] = set()
        for manager in kv_cache_manager.coordinator.single_type_managers:
            blocks = manager.req_to_blocks.get(request.request_id) or []
            dirty.update(
                b.block_id for b in blocks[num_confirmed // manager.block_size:] if not b.is_null
            )
        if dirty:
            kv_cache_manager.evict_blocks(dirty)

    def _evict_all_dirty(self) -> None:
        for request in list(self.scheduler.running):
            self._evict_dirty_tail(request)

    def on_fault(self, exc: BaseException) -> None:
        self._evict_all_dirty()
        aborted = self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
