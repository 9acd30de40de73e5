# Intended: correct.
# Idioms: a metaclass that registers action classes by a key, lookup of the action by a computed name, __call__ on action objects.
# switch: RESUME_REQUESTS
"""Fault handler that picks its recovery action from a metaclass registry."""

from __future__ import annotations

from fault_actions import ActionMeta


class FaultHandler:
    RESUME_REQUESTS = False

    def __init__(self, engine):
        self.engine = engine

    @property
    def action_key(self):
        return ("abort", "resume")[bool(self.RESUME_REQUESTS)]

    def on_fault(self, exc):
        requests = list(self.engine.scheduler.running)
        action = ActionMeta.lookup(self.action_key)(self.engine)
        action(requests)
