from __future__ import annotations

from typing import Any


class TailEvictor:
    def __init__(self, kv_manager: Any) -> None:
        self._kv = kv_manager
        self.evicted = 0

    def _tail_ids(self, request: Any) -> set[int]:
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        ids: set[int] = set()
        for group in self._kv.coordinator.single_type_managers:
            for block in group.req_to_blocks.get(request.request_id, [])[confirmed // group.block_size :]:
                if not block.is_null:
                    ids.add(block.block_id)
        return ids

    def evict_tail(self, request: Any) -> None:
        ids = self._tail_ids(request)
        if ids:
            self._kv.evict_blocks(ids)
            self.evicted += len(ids)
