# Intended: correct.
# Idioms: a pipeline of injected step callables (functions and small classes) over a shared
# dataclass context, Protocol for steps, the default pipeline used when None is passed, a
# clock injected into the release step.
# switch: resume
"""Fault handler that runs a configurable pipeline of recovery steps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from recovery_steps import DEFAULT_PIPELINE, FaultContext, Step


class FaultHandler:
    resume = False

    def __init__(self, engine: Any, steps: Sequence[Step] | None = None) -> None:
        self.engine = engine
        self.steps: tuple[Step, ...] = tuple(steps) if steps is not None else DEFAULT_PIPELINE

    def on_fault(self, exc: BaseException) -> FaultContext:
        ctx = FaultContext(engine=self.engine, error=exc, resume=self.resume)
        for step in self.steps:
            step(ctx)
        return ctx
