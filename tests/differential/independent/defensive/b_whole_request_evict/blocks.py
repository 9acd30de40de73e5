"""Collect every block id a request holds, in every KV-cache group."""

from __future__ import annotations


def all_block_ids(scheduler, request_id):
    ids = set()
    for manager in getattr(scheduler.kv_cache_manager.coordinator, "single_type_managers", ()):
        for block in manager.req_to_blocks.get(request_id, ()):
            if not getattr(block, "is_null", False):
                ids.add(block.block_id)
    return ids
