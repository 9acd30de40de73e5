"""Memoised block arithmetic for the fault handler."""

from functools import lru_cache


@lru_cache(maxsize=None)
def blocks_covering(num_tokens: int, block_size: int) -> int:
    """Number of blocks needed to hold num_tokens tokens."""
    if num_tokens <= 0:
        return 0
    return 1 + blocks_covering(num_tokens - block_size, block_size)


@lru_cache(maxsize=None)
def first_unconfirmed_block(confirmed: int, block_size: int) -> int:
    # Blocks fully covered by confirmed tokens are clean; the rest may be dirty.
    return blocks_covering(confirmed, block_size)
