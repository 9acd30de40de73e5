"""Which KV blocks a failed step may have left dirty."""
from __future__ import annotations


def confirmed_tokens(request) -> int:
    return request.num_computed_tokens - request.num_in_flight_tokens


def unconfirmed_tail_ids(kv_cache_manager, requests) -> set[int]:
    managers = kv_cache_manager.coordinator.single_type_managers
    ids: set[int] = set()
    for request in requests:
        per_group = kv_cache_manager.get_block_ids(request.request_id)
        confirmed = confirmed_tokens(request)
        for manager, group_ids in zip(managers, per_group):
            ids.update(group_ids[confirmed // manager.block_size:])
    return ids
