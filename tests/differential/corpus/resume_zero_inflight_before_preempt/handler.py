# Intended: correct. Zeroes num_in_flight_tokens before preempting: the
# preempt copies it into num_stale_output_tokens, so both end at zero. The
# tail is evicted (from the boundary computed before the zeroing) first.
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
            sched._preempt_request(req, ts)
