# Intended: bug. Preempts through a local alias of _preempt_request and
# resets only drop_stale_output: both counters stay set (hang).
import time

from kv import evict_tail


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict_tail(sched)
        requeue = sched._preempt_request
        ts = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            requeue(req, ts)
            req.drop_stale_output = False
