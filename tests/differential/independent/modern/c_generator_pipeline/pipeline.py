"""A lazy pipeline: running requests -> (request, group, block) -> dirty block ids."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(slots=True, kw_only=True, frozen=True)
class GroupView:
    index: int
    block_size: int
    table: Any  # the manager's req_to_blocks


@dataclass(slots=True, kw_only=True, frozen=True)
class Cursor:
    request_id: str
    group: int
    position: int
    block_id: int
    is_null: bool
    block_size: int


def group_views(coordinator: Any) -> Iterator[GroupView]:
    for i, mgr in enumerate(coordinator.single_type_managers):
        yield GroupView(index=i, block_size=mgr.block_size, table=mgr.req_to_blocks)


def cursors(request_ids: Iterable[str], groups: Iterable[GroupView]) -> Iterator[Cursor]:
    views = tuple(groups)
    for rid in request_ids:
        for view in views:
            for pos, block in enumerate(view.table.get(rid, ())):
                yield Cursor(
                    request_id=rid,
                    group=view.index,
                    position=pos,
                    block_id=block.block_id,
                    is_null=block.is_null,
                    block_size=view.block_size,
                )


def unconfirmed(items: Iterable[Cursor], boundaries: dict[str, int]) -> Iterator[Cursor]:
    """Keep blocks at or after the block holding each request's confirmed boundary."""
    for cur in items:
        if cur.is_null:
            continue
        if cur.position >= boundaries[cur.request_id] // cur.block_size:
            yield cur
