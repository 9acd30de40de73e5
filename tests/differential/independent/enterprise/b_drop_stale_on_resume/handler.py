# Intended: buggy: the resume path preempts with drop_stale_output=True (as reset_prefix_cache does), so each requeued request is marked to drop its next output frame as stale; the failed step's frame never arrives, so the first good frame after resume is dropped.
# Idioms: strategy objects behind an abstract base class, a strategy registry keyed by an Enum, a small options dataclass injected into the resume strategy; class-attribute switch.
# switch: RESUME
"""Fault handler selecting an abort or resume strategy from a registry."""

from __future__ import annotations

from requeue_strategies import STRATEGIES, RequeueOptions, StrategyKind


class FaultHandler:
    RESUME = False

    def __init__(self, engine, options: RequeueOptions | None = None) -> None:
        self.engine = engine
        self.options = options or RequeueOptions()

    @property
    def kind(self) -> StrategyKind:
        return StrategyKind.RESUME if self.RESUME else StrategyKind.ABORT

    def on_fault(self, exc: Exception) -> None:
        STRATEGIES[self.kind](self.options).handle(self.engine)
