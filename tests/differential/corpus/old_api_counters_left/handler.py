# Intended: bug (older API). Preempts for resume and resets nothing: the
# in-flight count of the lost step stays set.
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
        for req in list(sched.running):
            sched.running.remove(req)
            sched._preempt_request(req, ts)
