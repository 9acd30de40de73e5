from __future__ import annotations


def confirmed_tokens(request) -> int:
    return max(0, request.num_computed_tokens - request.num_in_flight_tokens)


def dirty_block_ids(kv_cache_manager, request) -> set[int]:
    """Ids of the blocks holding [confirmed, num_computed_tokens) in every group."""
    start = confirmed_tokens(request)
    out = set()
    for manager in kv_cache_manager.coordinator.single_type_managers:
        blocks = manager.req_to_blocks.get(request.request_id, [])
        for block in blocks[start // manager.block_size :]:
            if not block.is_null:
                out.add(block.block_id)
    return out
