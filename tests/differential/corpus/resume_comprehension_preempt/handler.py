# Intended: correct. Drains the running queue with a comprehension of pops,
# preempts in a list comprehension, then resets the counters in a loop.
import time

from kv import evict_tail


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict_tail(sched)
        ts = time.monotonic()
        victims = [sched.running.pop() for _ in range(len(sched.running))]
        [sched._preempt_request(r, ts) for r in victims]
        for r in victims:
            r.num_in_flight_tokens = r.num_stale_output_tokens = 0
