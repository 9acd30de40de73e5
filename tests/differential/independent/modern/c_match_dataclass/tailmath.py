"""Pure arithmetic over the unconfirmed tail of a request's KV cache."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

#: First token index; a confirmed boundary never goes below it.
ORIGIN: Final[int] = 0


@dataclass(slots=True, kw_only=True, frozen=True)
class TailSpan:
    """Tokens ``[confirmed, computed)``: scheduled by the failed step, never confirmed."""

    confirmed: int
    computed: int

    @classmethod
    def of(cls, *, computed: int, in_flight: int) -> TailSpan:
        return cls(confirmed=max(ORIGIN, computed - in_flight), computed=computed)

    @property
    def empty(self) -> bool:
        return self.computed <= self.confirmed

    def first_block(self, *, block_size: int) -> int:
        """Index of the block holding the confirmed boundary: it and every later
        block may hold KV that the failed step wrote (or never wrote)."""
        return self.confirmed // block_size
