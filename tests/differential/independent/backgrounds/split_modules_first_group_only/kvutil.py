"""Block arithmetic for the fault handler."""
from __future__ import annotations


def block_size(kv_cache_manager) -> int:
    return kv_cache_manager.coordinator.single_type_managers[0].block_size


def tail_block_ids(kv_cache_manager, req) -> set[int]:
    ids = kv_cache_manager.get_block_ids(req.request_id)[0]
    first = (req.num_computed_tokens - req.num_in_flight_tokens) // block_size(kv_cache_manager)
    return set(ids[first:])


def evict(kv_cache_manager, ids: set[int]) -> None:
    if ids:
        kv_cache_manager.evict_blocks(ids)
