# Intended: correct. Preempts in try and resets the counters in finally, so
# the request is re-armed even if the preempt path raises.
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
            try:
                sched._preempt_request(req, ts)
            finally:
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
