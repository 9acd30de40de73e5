"""Token-range to block-index arithmetic."""
from __future__ import annotations


def first_block(token: int, block_size: int) -> int:
    """Block holding ``token``."""
    return token // block_size


def end_block(token_end: int, block_size: int) -> int:
    """One past the last block touched by tokens ``[.., token_end)``."""
    return (token_end + block_size - 1) // block_size


def unconfirmed(num_computed: int, num_in_flight: int, block_size: int) -> range:
    """Blocks touched by ``[num_computed - num_in_flight, num_computed)``."""
    start = max(0, num_computed - num_in_flight)
    return range(first_block(start, block_size), end_block(num_computed, block_size))
