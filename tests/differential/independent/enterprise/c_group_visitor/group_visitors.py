"""Visitors over KV-cache groups."""

from __future__ import annotations

from abc import ABC, abstractmethod


class KVGroupVisitor(ABC):
    @abstractmethod
    def visit_group(self, node: "KVGroupNode") -> None: ...


class KVGroupNode:
    """One KV-cache group (a SingleTypeKVCacheManager) as a visitable element."""

    def __init__(self, group_id: int, manager) -> None:
        self.group_id = group_id
        self._manager = manager

    @property
    def block_size(self) -> int:
        return self._manager.block_size

    def blocks_of(self, request_id: str):
        return self._manager.req_to_blocks.get(request_id, ())

    def accept(self, visitor: KVGroupVisitor) -> None:
        visitor.visit_group(self)


class UnconfirmedTailCollector(KVGroupVisitor):
    """Collects, per group, the blocks from the one holding the confirmed boundary onward."""

    def __init__(self, requests) -> None:
        self._requests = list(requests)
        self._ids: set[int] = set()

    @property
    def block_ids(self) -> set[int]:
        return set(self._ids)

    def visit_group(self, node: KVGroupNode) -> None:
        for request in self._requests:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            blocks = node.blocks_of(request.request_id)
            for block in blocks[confirmed // node.block_size :]:
                if block.is_null:
                    continue
                self._ids.add(block.block_id)
