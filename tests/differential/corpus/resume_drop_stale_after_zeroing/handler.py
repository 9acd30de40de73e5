# Intended: correct. Zeroes num_in_flight_tokens first, then preempts with
# drop_stale_output=True: with no stale tokens pending nothing is dropped.
import time

from kv import evict_tail


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict_tail(sched)
        ts = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            req.num_in_flight_tokens = 0
            sched._preempt_request(req, ts, drop_stale_output=True)
