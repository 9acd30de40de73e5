from __future__ import annotations

from collections.abc import Iterable

from vllm.v1.core.kv_cache_manager import KVCacheManager
from vllm.v1.request import Request


class UnconfirmedBlockEvictor:
    """Drops the prefix-cache entries of blocks written by a step whose
    output was lost.

    ``KVCacheManager.allocate_slots`` caches newly full blocks when a step is
    scheduled, before the forward pass runs. When the step fails, the
    blocks past the request's confirmed tokens stay in the prefix cache
    without valid KV: evict them, in every KV cache group.
    """

    def __init__(self, kv_cache_manager: KVCacheManager) -> None:
        self.kv_cache_manager = kv_cache_manager
        self.managers = kv_cache_manager.coordinator.single_type_managers

    def block_ids_to_evict(self, request: Request) -> set[int]:
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        block_ids: set[int] = set()
        for manager in self.managers:
            req_blocks = manager.req_to_blocks.get(request.request_id, [])
            first_dirty = num_confirmed // manager.block_size
            for block in req_blocks[first_dirty:]:
                if block.block_hash is not None:
                    block_ids.add(block.block_id)
        return block_ids

    def evict(self, requests: Iterable[Request]) -> int:
        block_ids: set[int] = set()
        for request in requests:
            block_ids.update(self.block_ids_to_evict(request))
        if block_ids:
            self.kv_cache_manager.evict_blocks(block_ids)
        return len(block_ids)
