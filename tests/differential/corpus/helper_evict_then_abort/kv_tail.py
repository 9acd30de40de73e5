"""Helpers to drop the prefix-cache entries a failed step left behind."""


def unconfirmed_tail_block_ids(kv_cache_manager, request) -> set[int]:
    """Block ids, in every KV-cache group, from the first block that holds a
    token whose output never came back."""
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    ids: set[int] = set()
    for manager in kv_cache_manager.coordinator.single_type_managers:
        blocks = manager.req_to_blocks.get(request.request_id, [])
        first_dirty = confirmed // manager.block_size
        for block in blocks[first_dirty:]:
            if not block.is_null:
                ids.add(block.block_id)
    return ids


def evict_unconfirmed_tails(scheduler, requests) -> None:
    kvm = scheduler.kv_cache_manager
    ids: set[int] = set()
    for request in requests:
        ids |= unconfirmed_tail_block_ids(kvm, request)
    if ids:
        kvm.evict_blocks(ids)
