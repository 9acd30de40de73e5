"""Block-index arithmetic for one KV-cache group."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True, kw_only=True, frozen=True)
class GroupTail:
    group: int
    block_size: int
    first_index: int
    block_ids: tuple[int, ...]

    @property
    def start_token(self) -> int:
        """Block-aligned first token of the tail (what zeroing wants)."""
        return self.first_index * self.block_size


def group_tail(*, group: int, manager, request_id: str, confirmed: int) -> GroupTail:
    first = confirmed // manager.block_size
    held = manager.req_to_blocks.get(request_id, [])
    return GroupTail(
        group=group,
        block_size=manager.block_size,
        first_index=first,
        block_ids=tuple(b.block_id for b in held[first:] if not b.is_null),
    )
