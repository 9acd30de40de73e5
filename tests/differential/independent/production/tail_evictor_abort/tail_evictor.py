"""Evict the KV blocks a failed step cached but never wrote."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class DirtyRange:
    """Token range ``[start, end)`` scheduled by the lost step."""

    request_id: str
    start: int
    end: int

    @classmethod
    def of(cls, request: Any) -> DirtyRange:
        end = request.num_computed_tokens
        return cls(request.request_id, max(0, end - request.num_in_flight_tokens), end)

    def blocks(self, block_size: int) -> slice:
        return slice(self.start // block_size, _cdiv(self.end, block_size))

    @property
    def empty(self) -> bool:
        return self.start >= self.end


class TailEvictor:
    def __init__(self, kv_manager: Any) -> None:
        self.kv_manager = kv_manager
        self.evicted = 0

    @property
    def _group_managers(self) -> list[Any]:
        return list(self.kv_manager.coordinator.single_type_managers)

    def block_ids(self, dirty: DirtyRange) -> set[int]:
        ids: set[int] = set()
        for manager in self._group_managers:
            held = manager.req_to_blocks.get(dirty.request_id, [])
            ids.update(b.block_id for b in held[dirty.blocks(manager.block_size)] if not b.is_null)
        return ids

    def evict(self, request: Any) -> None:
        dirty = DirtyRange.of(request)
        if dirty.empty:
            return
        ids = self.block_ids(dirty)
        if ids:
            self.kv_manager.evict_blocks(ids)
            self.evicted += len(ids)
