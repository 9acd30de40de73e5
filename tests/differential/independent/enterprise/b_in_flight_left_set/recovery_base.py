from __future__ import annotations

from abc import ABC, abstractmethod


class RecoverySkeleton(ABC):
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: Exception) -> None:
        requests = list(self.engine.scheduler.running)
        self.evict(requests)
        self.release(requests)

    @abstractmethod
    def evict(self, requests) -> None: ...

    @abstractmethod
    def release(self, requests) -> None: ...


class TailEvictionMixin:
    def evict(self, requests) -> None:
        kv = self.engine.scheduler.kv_cache_manager
        ids: set[int] = set()
        for request in requests:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                table = mgr.req_to_blocks.get(request.request_id, [])
                ids.update(b.block_id for b in table[confirmed // mgr.block_size :] if not b.is_null)
        kv.evict_blocks(ids)
