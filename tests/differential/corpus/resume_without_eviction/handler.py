# Intended: bug. Resume with correct counter handling but no tail eviction:
# the resumed request re-hits its own never-computed blocks.
import time


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        ts = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
