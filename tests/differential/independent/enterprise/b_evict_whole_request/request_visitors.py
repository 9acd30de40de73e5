from __future__ import annotations

from abc import ABC, abstractmethod


class RequestVisitor(ABC):
    @abstractmethod
    def visit_request(self, entry: "RequestEntry") -> None: ...


class RequestEntry:
    def __init__(self, request) -> None:
        self.request = request

    def accept(self, visitor: RequestVisitor) -> None:
        visitor.visit_request(self)


class BlockInvalidationVisitor(RequestVisitor):
    """Collects the blocks of requests that were part of the failed batch."""

    def __init__(self, kv_cache_manager) -> None:
        self._kv = kv_cache_manager
        self._ids: set[int] = set()

    @property
    def block_ids(self) -> set[int]:
        return self._ids

    def visit_request(self, entry: RequestEntry) -> None:
        for group in self._kv.get_block_ids(entry.request.request_id):
            self._ids.update(group)
        self._ids.discard(0)  # the null block is never cached
