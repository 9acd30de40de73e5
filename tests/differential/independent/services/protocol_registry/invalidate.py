"""Prefix-cache invalidation of blocks a failed step may have left half-written."""

from __future__ import annotations


def unconfirmed_block_ids(kv_cache_manager, request) -> set[int]:
    keep = request.num_computed_tokens - request.num_in_flight_tokens
    return {
        block.block_id
        for manager in kv_cache_manager.coordinator.single_type_managers
        for block in manager.req_to_blocks[request.request_id][keep // manager.block_size :]
        if not block.is_null
    }


def invalidate_tails(kv_cache_manager, requests) -> None:
    ids: set[int] = set()
    for request in requests:
        ids |= unconfirmed_block_ids(kv_cache_manager, request)
    kv_cache_manager.evict_blocks(ids)
