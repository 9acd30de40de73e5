"""Undoable steps and a runner that keeps an undo log.

A step's ``do()`` returns an undo callable, or ``None`` when the step cannot (or
need not) be undone.  If any step raises, the runner unwinds the log newest
first and re-raises.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Protocol

logger = logging.getLogger(__name__)

Undo = Callable[[], None]


class UndoableStep(Protocol):
    name: str

    def do(self) -> Undo | None: ...


class FieldReset:
    """Set some int fields of an object to zero; undo restores them."""

    def __init__(self, obj, *fields: str):
        self.obj = obj
        self.fields = fields
        self.name = f"reset {', '.join(fields)} of {getattr(obj, 'request_id', obj)}"

    def do(self) -> Undo:
        saved = {f: getattr(self.obj, f) for f in self.fields}
        for f in self.fields:
            setattr(self.obj, f, 0)

        def undo() -> None:
            for f, v in saved.items():
                setattr(self.obj, f, v)

        return undo


class Irreversible:
    """Wrap a callable that cannot be undone."""

    def __init__(self, name: str, fn: Callable[[], object]):
        self.name = name
        self.fn = fn

    def do(self) -> None:
        self.fn()
        return None


def run_with_undo_log(steps: Sequence[UndoableStep]) -> None:
    log: list[tuple[str, Undo]] = []
    try:
        for step in steps:
            undo = step.do()
            if undo is not None:
                log.append((step.name, undo))
    except Exception:
        for name, undo in reversed(log):
            logger.warning("undoing %s", name)
            undo()
        raise
