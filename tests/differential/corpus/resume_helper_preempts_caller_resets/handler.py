# Intended: correct. A helper in another module pops and preempts one request
# and returns it; the caller resets that request's counters.
import time

from requeue import evict_tail, requeue_one


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict_tail(sched)
        ts = time.monotonic()
        while sched.running:
            req = requeue_one(sched, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
