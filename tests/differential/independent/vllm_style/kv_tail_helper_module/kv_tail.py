"""Helpers for locating KV blocks a failed engine step left unconfirmed."""
from __future__ import annotations

from collections.abc import Iterable

from vllm.v1.core.kv_cache_manager import KVCacheManager
from vllm.v1.request import Request


def confirmed_tokens(request: Request) -> int:
    """Tokens whose output frame came back: the scheduler's own boundary
    (cf. ``cache_blocks(request, num_computed_tokens - num_in_flight_tokens)``)."""
    return request.num_computed_tokens - request.num_in_flight_tokens


def unconfirmed_block_ids(kv_cache_manager: KVCacheManager, request: Request) -> set[int]:
    out: set[int] = set()
    start_token = confirmed_tokens(request)
    for manager in kv_cache_manager.coordinator.single_type_managers:
        blocks = manager.req_to_blocks.get(request.request_id)
        if blocks:
            out.update(
                block.block_id
                for block in blocks[start_token // manager.block_size:]
                if not block.is_null
            )
    return out


def evict_unconfirmed(kv_cache_manager: KVCacheManager, requests: Iterable[Request]) -> int:
    block_ids: set[int] = set()
    for request in requests:
        block_ids |= unconfirmed_block_ids(kv_cache_manager, request)
    kv_cache_manager.evict_blocks(block_ids)
    return len(block_ids)
