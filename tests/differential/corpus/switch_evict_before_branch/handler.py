# Intended: correct on both paths. Evicts the tail in a helper before the
# abort/resume branch; resume resets both counters after the preempt.
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
        evict_tail(sched)
        if self.resume_on_fault:
            ts = time.monotonic()
            while sched.running:
                req = sched.running.pop()
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
