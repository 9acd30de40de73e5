from __future__ import annotations

from typing import Any


class KVJanitor:
    def __init__(self, engine: Any) -> None:
        self._engine = engine
        self.evicted = 0

    @property
    def scheduler(self) -> Any:
        return self._engine.scheduler

    @property
    def kv(self) -> Any:
        return self.scheduler.kv_cache_manager

    def evict_last_written(self, request: Any) -> None:
        """The failed step appended to the request's last block of each group."""
        ids: set[int] = set()
        for group in self.kv.coordinator.single_type_managers:
            blocks = group.req_to_blocks.get(request.request_id)
            if not blocks or blocks[-1].is_null:
                continue
            ids.add(blocks[-1].block_id)
        if ids:
            self.kv.evict_blocks(ids)
            self.evicted += len(ids)
