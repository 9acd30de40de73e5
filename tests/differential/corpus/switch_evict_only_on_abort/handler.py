# Intended: bug on the resume path. Evicts the tail only before aborting; the
# resume path preempts (counters reset correctly) without evicting.
# switch: resume_on_fault
import time

from vllm.v1.request import RequestStatus

from kv import evict_tail


class FaultHandler:
    resume_on_fault = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        if not self.resume_on_fault:
            evict_tail(sched)
            sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            return
        ts = time.monotonic()
        for req in list(sched.running):
            sched.running.remove(req)
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
