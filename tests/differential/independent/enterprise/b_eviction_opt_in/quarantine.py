from __future__ import annotations

from abc import ABC, abstractmethod


class KVQuarantine(ABC):
    @abstractmethod
    def isolate(self, scheduler, requests) -> None: ...


class NoQuarantine(KVQuarantine):
    def isolate(self, scheduler, requests) -> None:
        return None


class TailQuarantine(KVQuarantine):
    def isolate(self, scheduler, requests) -> None:
        kv = scheduler.kv_cache_manager
        ids: set[int] = set()
        for req in requests:
            boundary = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                for blk in mgr.req_to_blocks.get(req.request_id, [])[boundary // mgr.block_size :]:
                    if not blk.is_null:
                        ids.add(blk.block_id)
        kv.evict_blocks(ids)


class QuarantineFactory:
    @staticmethod
    def create(settings) -> KVQuarantine:
        return TailQuarantine() if settings.quarantine_unconfirmed_kv else NoQuarantine()
