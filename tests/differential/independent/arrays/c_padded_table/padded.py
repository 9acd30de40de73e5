"""Ragged block tables as a dense, padded 2-D array (one row per request)."""

from __future__ import annotations

import numpy as np

PAD = -1


def dense_block_table(rows: list[list[int]]) -> np.ndarray:
    """Stack ragged rows into an (n_req, max_len) int64 array padded with PAD."""
    width = max((len(r) for r in rows), default=0)
    out = np.full((len(rows), width), PAD, dtype=np.int64)
    for i, row in enumerate(rows):
        out[i, : len(row)] = row
    return out


def tail_columns(table: np.ndarray, first_col: np.ndarray) -> np.ndarray:
    """Mask of the cells at or after first_col[i] in row i (broadcast over rows)."""
    cols = np.arange(table.shape[1])[None, :]
    return (cols >= first_col[:, None]) & (table != PAD)
