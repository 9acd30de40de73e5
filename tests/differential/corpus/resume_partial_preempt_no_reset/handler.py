# Intended: bug. Preempts through a functools.partial of _preempt_request and
# never resets the counters: the resumed requests hang on stale output.
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
        while sched.running:
            preempt(sched.running.pop())
