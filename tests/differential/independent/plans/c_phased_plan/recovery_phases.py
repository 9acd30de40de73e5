"""Phase-ordered recovery steps.

Planners emit steps in whatever order is convenient; ``ordered()`` sorts them by
phase (stable within a phase), so prefix-cache invalidation always happens while
the requests still hold their blocks, and counter fix-ups happen after the
requests were released.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, NamedTuple


class Phase(IntEnum):
    INVALIDATE = 10  # drop hashes of blocks that may hold garbage
    RELEASE = 20  # abort or preempt (frees blocks)
    FIXUP = 30  # per-request bookkeeping after the release


class Step(NamedTuple):
    phase: Phase
    verb: str
    target: Any
    payload: Any = None


def ordered(steps: list[Step]) -> list[Step]:
    return sorted(steps, key=lambda s: s.phase)
