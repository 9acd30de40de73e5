"""Token <-> block arithmetic."""

from __future__ import annotations

import math
from typing import Final

MIN_TOKENS: Final[int] = 0


def confirmed_boundary(*, computed: int, in_flight: int) -> int:
    return max(MIN_TOKENS, computed - in_flight)


def first_unconfirmed_block(confirmed: int, /, *, block_size: int) -> int:
    """Index of the first block not fully covered by confirmed tokens."""
    return math.ceil(confirmed / block_size)
