from __future__ import annotations

from typing import Iterable, Protocol, Sequence


class BlockTableProvider(Protocol):
    def tables(self, kv_cache_manager, request_id: str) -> Iterable[tuple[int, Sequence]]: ...


class PrimaryGroupTables:
    """Block table of the request in the model's (first) attention group."""

    def tables(self, kv_cache_manager, request_id: str):
        manager = kv_cache_manager.coordinator.single_type_managers[0]
        return [(manager.block_size, manager.req_to_blocks.get(request_id, []))]
