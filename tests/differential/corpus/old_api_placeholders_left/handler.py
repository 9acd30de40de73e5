# Intended: bug (older API). Resets num_in_flight_tokens after the preempt but
# leaves num_output_placeholders of the lost step (0.26's preempt does not
# clear it): the scheduler counts an output that will never come.
# vllm: 0.26
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
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
