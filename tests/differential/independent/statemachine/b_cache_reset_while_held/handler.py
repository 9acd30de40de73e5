# Intended: buggy: it invalidates the failed step's KV by resetting the whole prefix cache while the running requests still hold their blocks, which vLLM refuses (the reset returns False), so nothing is evicted and the dirty tail stays cached when the requests are then aborted.
# Idioms: State pattern with phase classes in a helper module and a key -> class registry, enter/exit hooks, None as the final phase, a context namespace object, a step counter.
"""Abort-on-fault recovery driven through a registry of phase objects."""

from __future__ import annotations

from types import SimpleNamespace

from phase_objects import REGISTRY


class FaultHandler:
    max_phases = 8

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        ctx = SimpleNamespace(
            engine=self.engine,
            scheduler=self.engine.scheduler,
            requests=[],
            aborted=[],
            cache_reset=False,
            exc=exc,
        )
        key: str | None = "halt"
        count = 0
        while key is not None:
            count += 1
            if count > self.max_phases:
                raise RuntimeError(f"recovery did not finish (at {key})") from exc
            phase = REGISTRY[key]()
            phase.enter(ctx)
            key = phase.advance(ctx)
            phase.exit(ctx)
        return ctx
