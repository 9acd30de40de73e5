"""Which KV blocks of a request the lost step may have left dirty."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol


class _Block(Protocol):
    block_id: int
    is_null: bool


class _GroupManager(Protocol):
    block_size: int
    req_to_blocks: dict[str, list[_Block]]


def confirmed_tokens(*, computed: int, in_flight: int) -> int:
    return max(0, computed - in_flight)


def tail_ids(
    managers: Sequence[_GroupManager], request_id: str, *, confirmed: int
) -> Iterator[int]:
    """Block ids from the block holding ``confirmed`` onwards, in every group."""
    for manager in managers:
        blocks = manager.req_to_blocks.get(request_id, [])
        for block in blocks[confirmed // manager.block_size :]:
            if not block.is_null:
                yield block.block_id
