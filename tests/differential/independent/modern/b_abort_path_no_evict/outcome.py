"""The outcome of fault handling, per request."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, auto


class Outcome(Enum):
    ABORTED = auto()
    REQUEUED = auto()


@dataclass(slots=True, kw_only=True)
class FaultLog:
    outcome: Outcome
    request_ids: list[str] = field(default_factory=list)
    evicted: int = 0
