from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class KVJanitor:
    def __init__(self, kv_cache_manager: Any) -> None:
        self.kv_cache_manager = kv_cache_manager

    def evict_unconfirmed(self, requests: Iterable[Any]) -> None:
        doomed: set[int] = set()
        groups = self.kv_cache_manager.coordinator.single_type_managers
        for request in requests:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for group in groups:
                for block in group.req_to_blocks.get(request.request_id, [])[confirmed // group.block_size :]:
                    if block.is_null:
                        continue
                    doomed.add(block.block_id)
        if doomed:
            self.kv_cache_manager.evict_blocks(doomed)
