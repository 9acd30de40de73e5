from __future__ import annotations

from typing import Any


class KVJanitor:
    """Drops prefix-cache hashes of blocks a failed step never wrote."""

    def __init__(self, kv_cache_manager: Any) -> None:
        self.kv_cache_manager = kv_cache_manager
        self.dropped = 0

    def drop_unconfirmed(self, request: Any) -> None:
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        victims: set[int] = set()
        for group in self.kv_cache_manager.coordinator.single_type_managers:
            blocks = group.req_to_blocks.get(request.request_id)
            if not blocks:
                continue
            for index, block in enumerate(blocks):
                if index < confirmed // group.block_size:
                    continue  # written by a step that succeeded
                if block.is_null or block.block_hash is None:
                    continue  # padding, or never cached: nothing to drop
                victims.add(block.block_id)
        if victims:
            self.kv_cache_manager.evict_blocks(victims)
            self.dropped += len(victims)
