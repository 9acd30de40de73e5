"""Per-group tail selection, dispatched on the KV-cache manager's type."""

from __future__ import annotations

from functools import singledispatch

from vllm.v1.core.single_type_kv_cache_manager import (
    SingleTypeKVCacheManager,
    SlidingWindowManager,
)


def _from_index(blocks, index):
    return {b.block_id for b in blocks[index:] if not b.is_null}


@singledispatch
def tail_blocks(manager, request_id, confirmed):
    """Block ids of ``request_id`` that may hold KV past ``confirmed`` tokens."""
    raise TypeError(f"don't know how to walk blocks of {type(manager).__name__}")


@tail_blocks.register
def _(manager: SingleTypeKVCacheManager, request_id, confirmed):
    held = manager.req_to_blocks.get(request_id, [])
    return _from_index(held, confirmed // manager.block_size)


@tail_blocks.register
def _(manager: SlidingWindowManager, request_id, confirmed):
    # Blocks that slid out of the window are already the null block; the
    # positions still line up with token indices, so the same cut applies.
    held = manager.req_to_blocks.get(request_id, [])
    if not held:
        return set()
    return _from_index(held, confirmed // manager.block_size)
