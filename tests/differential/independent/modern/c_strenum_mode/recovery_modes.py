"""How a faulted engine treats the requests it was running."""

from __future__ import annotations

from enum import StrEnum, auto


class RecoveryMode(StrEnum):
    ABORT = auto()
    RESUME = auto()

    @classmethod
    def from_flag(cls, resume: bool, /) -> RecoveryMode:
        return cls.RESUME if resume else cls.ABORT
