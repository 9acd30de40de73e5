"""Reads a request's KV blocks for the fault handler."""

from __future__ import annotations

from typing import Any, Protocol


class BlockReader(Protocol):
    block_size: int

    def blocks(self, request_id: str) -> list[Any]: ...


class PrimaryGroupReader:
    """Blocks of the request in the model's attention KV-cache group."""

    def __init__(self, kv_cache_manager: Any) -> None:
        self._manager = kv_cache_manager.coordinator.single_type_managers[0]
        self.block_size = self._manager.block_size

    def blocks(self, request_id: str) -> list[Any]:
        return list(self._manager.req_to_blocks.get(request_id) or [])
