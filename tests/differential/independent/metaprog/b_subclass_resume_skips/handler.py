# Intended: buggy: the resume strategy overrides handle() and skips the base class's tail eviction, so on the resume path the blocks written by the lost step keep their hashes and the resumed request re-hits never-computed KV.
# Idioms: an __init_subclass__ registry keyed by a class keyword, strategy lookup by a computed mode name, a subclass overriding the template method.
# switch: resume_mode
"""Fault handler that delegates to a registered recovery strategy."""

from __future__ import annotations

from strategies import Strategy


class FaultHandler:
    resume_mode = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        mode = "resume" if self.resume_mode else "abort"
        Strategy.for_mode(mode, self.engine).handle(list(self.engine.scheduler.running))
