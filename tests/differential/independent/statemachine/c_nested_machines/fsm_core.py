"""A reusable finite-state machine with enter/exit callbacks and guarded edges."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


class InvalidTransition(RuntimeError):
    pass


@dataclass
class Edge:
    target: str
    guard: Callable[[Any], bool] | None = None


@dataclass
class FSM:
    name: str
    initial: str
    finals: frozenset[str]
    edges: dict[str, list[Edge]]
    on_enter: dict[str, Callable[[Any], None]] = field(default_factory=dict)
    on_exit: dict[str, Callable[[Any], None]] = field(default_factory=dict)
    max_steps: int = 50

    def run(self, ctx: Any) -> str:
        current = self.initial
        self._enter(current, ctx)
        steps = 0
        while current not in self.finals:
            steps += 1
            if steps > self.max_steps:
                raise InvalidTransition(f"{self.name}: exceeded {self.max_steps} steps in {current}")
            nxt = self._pick(current, ctx)
            self._exit(current, ctx)
            current = nxt
            self._enter(current, ctx)
        return current

    def _pick(self, current: str, ctx: Any) -> str:
        for edge in self.edges.get(current, ()):
            if edge.guard is None or edge.guard(ctx):
                return edge.target
        raise InvalidTransition(f"{self.name}: no enabled edge out of {current}")

    def _enter(self, st: str, ctx: Any) -> None:
        cb = self.on_enter.get(st)
        if cb is not None:
            cb(ctx)

    def _exit(self, st: str, ctx: Any) -> None:
        cb = self.on_exit.get(st)
        if cb is not None:
            cb(ctx)
