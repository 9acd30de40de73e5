# Intended: abort path correct; resume path bug (older API): sets
# async_tokens_to_discard from the placeholders, dropping the first good frame.
# switch: resume_on_fault
# vllm: 0.26
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
        if not self.resume_on_fault:
            sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            return
        ts = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            placeholders = req.num_output_placeholders
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.async_tokens_to_discard = placeholders
            req.num_output_placeholders = 0
