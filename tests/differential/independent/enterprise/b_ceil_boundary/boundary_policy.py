from __future__ import annotations

from abc import ABC, abstractmethod


class BlockMath:
    @staticmethod
    def blocks_needed(num_tokens: int, block_size: int) -> int:
        return -(-num_tokens // block_size)


class BoundaryPolicy(ABC):
    @abstractmethod
    def first_unconfirmed_block(self, confirmed_tokens: int, block_size: int) -> int:
        """Index of the first block that may hold unconfirmed KV."""


class WholeBlockBoundary(BoundaryPolicy):
    """Every block needed to hold the confirmed tokens is confirmed; the rest is not."""

    def first_unconfirmed_block(self, confirmed_tokens: int, block_size: int) -> int:
        return BlockMath.blocks_needed(confirmed_tokens, block_size)
