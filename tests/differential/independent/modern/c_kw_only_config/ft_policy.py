"""Fault-tolerance policy: an immutable value object with safe defaults."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Disposition(Enum):
    ABORT = "abort"
    PREEMPT = "preempt"


@dataclass(slots=True, kw_only=True, frozen=True)
class FaultPolicy:
    disposition: Disposition = Disposition.ABORT
    evict_unconfirmed_tail: bool = True
    skip_null_blocks: bool = True
    tags: frozenset[str] = field(default_factory=frozenset)

    def with_disposition(self, disposition: Disposition, /) -> FaultPolicy:
        return FaultPolicy(
            disposition=disposition,
            evict_unconfirmed_tail=self.evict_unconfirmed_tail,
            skip_null_blocks=self.skip_null_blocks,
            tags=self.tags,
        )
