"""Iterable stage objects: each wraps an upstream iterable and is itself
iterable, so stages compose as ``Outer(Inner(source))`` and stay lazy."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass
class Tail:
    request_id: str
    group: int
    block_id: int


class Requests:
    """Snapshot of the running queue (the queue itself changes under abort)."""

    def __init__(self, scheduler: Any) -> None:
        self._items = tuple(scheduler.running)

    def __iter__(self) -> Iterator[Any]:
        yield from self._items

    def __len__(self) -> int:
        return len(self._items)


class UnconfirmedTails:
    def __init__(self, requests: Iterable[Any], managers: Iterable[Any]) -> None:
        self.requests = requests
        self.managers = tuple(managers)

    def __iter__(self) -> Iterator[Tail]:
        for req in self.requests:
            yield from self._one(req)

    def _one(self, req: Any) -> Iterator[Tail]:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for group, mgr in enumerate(self.managers):
            yield from self._group(req, group, mgr, confirmed)

    @staticmethod
    def _group(req: Any, group: int, mgr: Any, confirmed: int) -> Iterator[Tail]:
        blocks = mgr.req_to_blocks.get(req.request_id, ())
        for index in range(max(confirmed, 0) // mgr.block_size, len(blocks)):
            block = blocks[index]
            if block.block_hash is not None and not block.is_null:
                yield Tail(req.request_id, group, block.block_id)
