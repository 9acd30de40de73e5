"""A batch of prefix-cache invalidations, collected per KV-cache group and flushed in
one call per group."""

from __future__ import annotations

from collections import defaultdict


class EvictionBatch:
    def __init__(self):
        self._by_group: dict[int, set[int]] = defaultdict(set)

    def add(self, group: int, block_ids) -> None:
        self._by_group[group].update(block_ids)

    def __bool__(self) -> bool:
        return any(self._by_group.values())

    def summary(self) -> dict[int, int]:
        return {g: len(ids) for g, ids in self._by_group.items()}

    def flush(self, kv_cache_manager) -> None:
        for group in sorted(self._by_group):
            ids = self._by_group[group]
            if ids:
                kv_cache_manager.evict_blocks(ids)
        self._by_group.clear()
