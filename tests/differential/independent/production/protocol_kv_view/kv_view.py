from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol


class Block(Protocol):
    block_id: int
    is_null: bool


class GroupManager(Protocol):
    block_size: int
    req_to_blocks: dict[str, Sequence[Block]]


class SupportsEvict(Protocol):
    def evict_blocks(self, block_ids: set[int]) -> None: ...


class KVView:
    def __init__(self, manager: SupportsEvict) -> None:
        self._manager = manager

    @property
    def groups(self) -> Iterable[GroupManager]:
        return self._manager.coordinator.single_type_managers  # type: ignore[attr-defined]

    def unconfirmed(self, request: Any) -> set[int]:
        start = request.num_computed_tokens - request.num_in_flight_tokens
        result: set[int] = set()
        for group in self.groups:
            blocks = group.req_to_blocks.get(request.request_id, ())
            result.update(b.block_id for b in blocks[start // group.block_size :] if not b.is_null)
        return result

    def forget(self, block_ids: set[int]) -> None:
        if block_ids:
            self._manager.evict_blocks(block_ids)
