# Intended: bug on the resume path. Evicts the tail before branching; the
# abort path is fine, the resume path leaves the lost step's counters (hang).
# switch: resume
import time

from vllm.v1.request import RequestStatus

from kv import evict_tail


class FaultHandler:
    def __init__(self, engine, resume=False):
        self.engine = engine
        self.resume = resume

    def _requeue(self, sched):
        ts = time.monotonic()
        while sched.running:
            sched._preempt_request(sched.running.pop(), ts)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict_tail(sched)
        if self.resume:
            self._requeue(sched)
        else:
            sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
