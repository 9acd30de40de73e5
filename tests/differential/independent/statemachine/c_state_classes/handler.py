# Intended: correct.
# Idioms: State pattern (one class per state in a helper module) with enter/exit hooks, states return the next state object, a machine object as the context, a step counter guarding the run loop.
"""Abort every running request after a fault, dropping the lost step's KV first."""

from __future__ import annotations

from recovery_states import Snapshot, State


class RecoveryStalled(RuntimeError):
    pass


class FaultHandler:
    step_limit = 32

    def __init__(self, engine):
        self.engine = engine
        self.scheduler = engine.scheduler
        self.victims: list = []
        self.tail_ids: set[int] = set()
        self.aborted: list = []
        self.history: list[str] = []

    def on_fault(self, exc):
        self.scheduler = self.engine.scheduler
        current: State | None = Snapshot()
        current.enter(self)
        steps = 0
        while current is not None:
            steps += 1
            if steps > self.step_limit:
                raise RecoveryStalled(f"recovery stuck in state {current.name!r}") from exc
            self.history.append(current.name)
            nxt = current.run(self)
            current.exit(self)
            if nxt is not None:
                nxt.enter(self)
            current = nxt
        return self.aborted
