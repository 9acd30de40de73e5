# Intended: correct (older API). Resets the two counters of the 0.26 API with
# setattr in a helper module after each preempt.
# vllm: 0.26
import time

from fork_recovery import evict_tail, forget_lost_step


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
            forget_lost_step(req)
