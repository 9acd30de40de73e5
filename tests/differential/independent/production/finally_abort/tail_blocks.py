from __future__ import annotations

from typing import Any


def dirty_ids(kv_manager: Any, request: Any) -> set[int]:
    """Ids of the blocks holding tokens [computed - in_flight, computed), every group."""
    end = request.num_computed_tokens
    start = end - request.num_in_flight_tokens
    out: set[int] = set()
    for group in kv_manager.coordinator.single_type_managers:
        size = group.block_size
        blocks = group.req_to_blocks.get(request.request_id, [])
        for index in range(start // size, min(len(blocks), (end + size - 1) // size)):
            block = blocks[index]
            if not block.is_null:
                out.add(block.block_id)
    return out
