"""Template for fault handlers: evict the lost step's KV, then recover."""
from __future__ import annotations

from vllm.v1.request import Request


class TailEvictingHandler:
    def __init__(self, engine):
        self.engine = engine

    def _first_unconfirmed_token(self, request: Request) -> int:
        return request.num_computed_tokens - request.num_in_flight_tokens

    def _collect_dirty(self, requests: list[Request]) -> set[int]:
        kv_cache_manager = self.engine.scheduler.kv_cache_manager
        dirty: set[int] = set()
        for request in requests:
            start_token = self._first_unconfirmed_token(request)
            for manager in kv_cache_manager.coordinator.single_type_managers:
                blocks = manager.req_to_blocks.get(request.request_id)
                if not blocks:
                    continue
                for block in blocks[start_token // manager.block_size:]:
                    if not block.is_null:
                        dirty.add(block.block_id)
        return dirty

    def _recover(self, requests: list[Request], exc: BaseException) -> None:
        raise NotImplementedError

    def on_fault(self, exc: BaseException) -> None:
        requests = list(self.engine.scheduler.running)
        dirty = self._collect_dirty(requests)
        if dirty:
            self.engine.scheduler.kv_cache_manager.evict_blocks(dirty)
        self._recover(requests, exc)
