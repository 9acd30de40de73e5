from __future__ import annotations

from typing import Iterator, Protocol, Sequence


class BlockTableReader(Protocol):
    def tables_for(self, request_id: str) -> Iterator[tuple[int, Sequence]]:
        """(block_size, blocks) for each KV-cache group."""
        ...


class CoordinatorBlockTables:
    def __init__(self, kv_cache_manager) -> None:
        self._coordinator = kv_cache_manager.coordinator

    def tables_for(self, request_id: str):
        for manager in self._coordinator.single_type_managers:
            yield manager.block_size, manager.req_to_blocks.get(request_id, [])
