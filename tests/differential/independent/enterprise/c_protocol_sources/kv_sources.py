from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Protocol


@dataclass(frozen=True)
class TokenSpan:
    start: int
    end: int

    @classmethod
    def unconfirmed(cls, request) -> "TokenSpan":
        return cls(request.num_computed_tokens - request.num_in_flight_tokens, request.num_computed_tokens)

    def overlaps(self, lo: int, hi: int) -> bool:
        return lo < self.end and self.start < hi


class BlockSource(Protocol):
    def blocks_overlapping(self, request_id: str, span: TokenSpan) -> set[int]: ...


class Evictor(Protocol):
    def evict(self, block_ids: set[int]) -> None: ...


class GroupBlockSource:
    def __init__(self, manager) -> None:
        self._manager = manager

    def blocks_overlapping(self, request_id: str, span: TokenSpan) -> set[int]:
        size = self._manager.block_size
        found = set()
        for i, block in enumerate(self._manager.req_to_blocks.get(request_id, [])):
            lo = i * size
            # Blocks at or after the boundary block, even those past the computed end
            # (allocated for the failed step's lookahead).
            if (span.overlaps(lo, lo + size) or lo >= span.start) and not block.is_null:
                found.add(block.block_id)
        return found


class BlockSourceFactory:
    def __init__(self, kv_cache_manager) -> None:
        self._kv = kv_cache_manager

    def all_groups(self) -> Iterable[BlockSource]:
        return [GroupBlockSource(m) for m in self._kv.coordinator.single_type_managers]


class ManagerEvictor:
    def __init__(self, kv_cache_manager) -> None:
        self._kv = kv_cache_manager

    def evict(self, block_ids: set[int]) -> None:
        if block_ids:
            self._kv.evict_blocks(block_ids)
