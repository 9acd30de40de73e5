# Intended: bug. Preempts with drop_stale_output=True, as reset_prefix_cache
# does: the failed step's frame never arrives, so the first good frame after
# resume is dropped.
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
            sched._preempt_request(sched.running.pop(), ts, drop_stale_output=True)
