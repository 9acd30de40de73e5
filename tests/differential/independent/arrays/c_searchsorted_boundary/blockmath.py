"""Token <-> block index arithmetic on numpy arrays."""

from __future__ import annotations

import numpy as np


def block_starts(num_blocks: int, block_size: int) -> np.ndarray:
    """First token of each block, plus one past the last block (num_blocks + 1 entries)."""
    return np.arange(num_blocks + 1, dtype=np.int64) * block_size


def block_of_token(token: int, num_blocks: int, block_size: int) -> int:
    """Index of the block that holds ``token`` (num_blocks when it lies past the table)."""
    starts = block_starts(num_blocks, block_size)
    return int(np.searchsorted(starts, token, side="right")) - 1
