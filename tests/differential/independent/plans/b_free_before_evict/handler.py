# Intended: buggy: the executor orders actions by a priority table that puts the release (abort or preempt) before the prefix-cache invalidation, and the invalidation looks the request's blocks up when it runs, after the release has popped them, so nothing is evicted.
# Idioms: decorator-registered action kinds with priorities, a plan of (kind, request_id, kwargs)
# Idioms: triples sorted by priority and dispatched through the registry; abort/resume switch.
# switch: resume
from __future__ import annotations

from action_registry import run_plan


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        plan = []
        for req in reversed(list(scheduler.running)):
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            plan.append(("invalidate", req.request_id, {"confirmed": confirmed}))
            plan.append(("release", req.request_id, {"requeue": self.resume}))
            if self.resume:
                plan.append(("reset_counters", req.request_id, {}))
        run_plan(self.engine, plan)
