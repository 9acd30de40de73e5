# Intended: correct. Resets the lost step's counters with setattr over a tuple
# of field names after preempting.
import time

from kv import evict_tail

_LOST_STEP_COUNTERS = ("num_in_flight_tokens", "num_stale_output_tokens")


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict_tail(sched)
        ts = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            sched._preempt_request(req, ts)
            for field in _LOST_STEP_COUNTERS:
                setattr(req, field, 0)
