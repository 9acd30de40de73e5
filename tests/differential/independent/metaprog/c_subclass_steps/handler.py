# Intended: correct.
# Idioms: an __init_subclass__ registry of ordered recovery steps with class keyword arguments, a SimpleNamespace context passed between steps.
# switch: RESUME
"""Fault handler that runs the registered recovery steps for its path."""

from __future__ import annotations

from types import SimpleNamespace

from recovery_steps import Step


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        ctx = SimpleNamespace(
            engine=self.engine,
            scheduler=scheduler,
            requests=list(scheduler.running),
            tail_ids=set(),
            error=exc,
        )
        for step_cls in Step.chain_for("resume" if self.RESUME else "abort"):
            step_cls(ctx).run()
