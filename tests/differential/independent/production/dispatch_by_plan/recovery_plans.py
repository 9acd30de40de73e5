from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AbortPlan:
    reason: str


@dataclass(frozen=True)
class ResumePlan:
    timestamp: float
