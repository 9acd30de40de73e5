# Intended: correct. Counter reset lives in a helper of another module
# (rearm(req)), called on each request right after its preempt.
import time

from recovery import evict_tail, rearm


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict_tail(sched)
        stamp = time.monotonic()
        while sched.running:
            victim = sched.running.pop()
            sched._preempt_request(victim, stamp)
            rearm(victim)
