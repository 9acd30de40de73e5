# Intended: bug. Resets num_stale_output_tokens after the preempt but not
# num_in_flight_tokens: the confirmed boundary stays off by the lost step.
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
            request = sched.running.pop()
            sched._preempt_request(request, ts)
            request.num_stale_output_tokens = 0
