"""Closures that collect a request's dirty blocks and flush them once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Collect = Callable[[Any], int]
Flush = Callable[[], int]


def make_tail_evictor(kv_cache_manager: Any) -> tuple[Collect, Flush]:
    """``collect(request)`` remembers the blocks of the request's unconfirmed tail
    (returns how many); ``flush()`` evicts them all in one call."""
    pending: set[int] = set()
    managers = tuple(kv_cache_manager.coordinator.single_type_managers)

    def collect(request: Any) -> int:
        confirmed = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
        before = len(pending)
        for mgr in managers:
            for block in mgr.req_to_blocks.get(request.request_id, [])[confirmed // mgr.block_size :]:
                if not block.is_null:
                    pending.add(block.block_id)
        return len(pending) - before

    def flush() -> int:
        if not (count := len(pending)):
            return 0
        kv_cache_manager.evict_blocks(set(pending))
        pending.clear()
        return count

    return collect, flush
