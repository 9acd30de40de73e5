"""Concurrent scan of the blocks a failed step may have left dirty."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass


@dataclass(frozen=True)
class GroupTail:
    request_id: str
    group_id: int
    block_ids: frozenset[int]


def _scan(manager, request) -> GroupTail:
    bs = manager.block_size
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    first_dirty = max(0, confirmed) // bs
    blocks = manager.req_to_blocks.get(request.request_id) or []
    return GroupTail(
        request.request_id,
        manager.kv_cache_group_id,
        frozenset(b.block_id for b in blocks[first_dirty:] if not b.is_null),
    )


class TailSweeper:
    """Submit one scan per (request, KV-cache group) and collect them as they finish."""

    def __init__(self, kv_cache_manager, *, workers: int = 8, timeout_s: float = 10.0):
        self.kv = kv_cache_manager
        self.workers = workers
        self.timeout_s = timeout_s

    def collect(self, requests) -> set[int]:
        managers = self.kv.coordinator.single_type_managers
        dirty: set[int] = set()
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            futures = [pool.submit(_scan, m, r) for r in requests for m in managers]
            for fut in as_completed(futures, timeout=self.timeout_s):
                dirty |= fut.result().block_ids
        return dirty

    def sweep(self, requests) -> int:
        dirty = self.collect(requests)
        if dirty:
            self.kv.evict_blocks(dirty)
        return len(dirty)
