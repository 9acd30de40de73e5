# Intended: correct. Binds the timestamp with functools.partial over
# _preempt_request; resets both counters after each preempt.
import functools
import time

from kv import evict_tail


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict_tail(sched)
        preempt = functools.partial(sched._preempt_request, timestamp=time.monotonic())
        for req in list(sched.running)[::-1]:
            sched.running.remove(req)
            preempt(req)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
