"""Block arithmetic shared by the fault-tolerance code."""

from __future__ import annotations

from typing import NamedTuple


def cdiv(a: int, b: int) -> int:
    """Ceiling division."""
    return -(a // -b)


class BlockRange(NamedTuple):
    start: int  # first block index (inclusive)
    stop: int  # one past the last block index

    def ids(self, blocks) -> list[int]:
        return [b.block_id for b in blocks[self.start : self.stop]]


def unconfirmed_range(num_confirmed: int, num_blocks: int, block_size: int) -> BlockRange:
    """Blocks past the ones the confirmed tokens occupy."""
    return BlockRange(cdiv(num_confirmed, block_size), num_blocks)
