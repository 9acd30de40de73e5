"""A recovery script: an ordered list of named steps, each a callable taking the
scheduler, with a trace of what ran."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

StepFn = Callable[[Any], None]


@dataclass
class Script:
    steps: list[tuple[str, StepFn]] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)

    def then(self, name: str, fn: StepFn) -> "Script":
        self.steps.append((name, fn))
        return self

    def extend(self, other: "Script") -> "Script":
        self.steps.extend(other.steps)
        return self

    def run(self, scheduler) -> None:
        for name, fn in self.steps:
            fn(scheduler)
            self.trace.append(name)
