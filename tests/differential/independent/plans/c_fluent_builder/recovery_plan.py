"""An immutable recovery plan and the fluent builder that assembles it."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Step(Enum):
    EVICT = "evict"
    ABORT = "abort"
    REQUEUE = "requeue"


@dataclass(frozen=True)
class PlannedStep:
    step: Step
    request_id: str
    group: int | None = None
    block_ids: frozenset[int] = frozenset()


@dataclass(frozen=True)
class RecoveryPlan:
    steps: tuple[PlannedStep, ...]

    def of(self, kind: Step) -> list[PlannedStep]:
        return [s for s in self.steps if s.step is kind]

    def __len__(self) -> int:
        return len(self.steps)


@dataclass
class PlanBuilder:
    _steps: list[PlannedStep] = field(default_factory=list)
    _finalised: set[str] = field(default_factory=set)

    def evict(self, request_id: str, group: int, block_ids) -> "PlanBuilder":
        if request_id in self._finalised:
            raise ValueError(f"{request_id}: evict must be planned before abort/requeue")
        ids = frozenset(block_ids)
        if ids:
            self._steps.append(PlannedStep(Step.EVICT, request_id, group, ids))
        return self

    def abort(self, request_id: str) -> "PlanBuilder":
        self._finalised.add(request_id)
        self._steps.append(PlannedStep(Step.ABORT, request_id))
        return self

    def requeue(self, request_id: str) -> "PlanBuilder":
        self._finalised.add(request_id)
        self._steps.append(PlannedStep(Step.REQUEUE, request_id))
        return self

    def build(self) -> RecoveryPlan:
        return RecoveryPlan(tuple(self._steps))
