"""Pure helpers: which KV blocks of a faulted step must leave the prefix cache."""

from __future__ import annotations

from itertools import product, starmap
from typing import NamedTuple


class GroupView(NamedTuple):
    group_id: int
    block_size: int
    req_to_blocks: object  # Mapping[str, list[KVCacheBlock]]


def group_views(kv_cache_manager) -> tuple[GroupView, ...]:
    return tuple(
        GroupView(i, mgr.block_size, mgr.req_to_blocks)
        for i, mgr in enumerate(kv_cache_manager.coordinator.single_type_managers)
    )


def unconfirmed_start(request) -> int:
    """First token whose output never came back."""
    return request.num_computed_tokens - request.num_in_flight_tokens


def dirty_ids(request, view: GroupView) -> frozenset[int]:
    blocks = view.req_to_blocks.get(request.request_id) or ()
    first = max(unconfirmed_start(request), 0) // view.block_size
    return frozenset(
        b.block_id for b in blocks[first:] if not b.is_null and b.block_hash is not None
    )


def plan(requests, views) -> frozenset[int]:
    """Union of the dirty tail over every (request, group) pair."""
    return frozenset().union(*starmap(dirty_ids, product(requests, views)))
