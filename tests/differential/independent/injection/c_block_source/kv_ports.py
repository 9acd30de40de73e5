"""Ports (Protocols) and their vLLM adapters for reading and evicting KV blocks."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple, Protocol


class GroupBlocks(NamedTuple):
    group: int
    block_size: int
    blocks: tuple[Any, ...]


class BlockSource(Protocol):
    def blocks_of(self, request_id: str) -> Iterator[GroupBlocks]: ...


class CacheEvictor(Protocol):
    def evict(self, block_ids: set[int]) -> None: ...


class KVManagerBlockSource:
    """Reads a request's blocks through KVCacheManager.get_blocks (one list per group)."""

    def __init__(self, kv_cache_manager: Any) -> None:
        self._kv = kv_cache_manager
        self._sizes = [m.block_size for m in kv_cache_manager.coordinator.single_type_managers]

    def blocks_of(self, request_id: str) -> Iterator[GroupBlocks]:
        per_group = self._kv.get_blocks(request_id).blocks
        for group, (size, blocks) in enumerate(zip(self._sizes, per_group, strict=True)):
            yield GroupBlocks(group, size, tuple(blocks))


class KVManagerEvictor:
    def __init__(self, kv_cache_manager: Any) -> None:
        self._kv = kv_cache_manager

    def evict(self, block_ids: set[int]) -> None:
        if block_ids:
            self._kv.evict_blocks(block_ids)
