# Intended: bug. Resume that evicts the tail and preempts but leaves the
# counters of the lost step: the request waits forever for stale output.
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
            sched._preempt_request(sched.running.pop(), ts)
