# Intended: correct. Calls _preempt_request through a local alias
# (p = sched._preempt_request; p(req, ts)) and resets both counters on the
# preempted request; the tail is evicted first.
import time

from kv import evict_tail


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict_tail(sched)
        p = sched._preempt_request
        ts = time.monotonic()
        for req in reversed(list(sched.running)):
            sched.running.remove(req)
            p(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
