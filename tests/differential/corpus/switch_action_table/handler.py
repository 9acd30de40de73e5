# Intended: correct on both paths. Chooses the recovery action from a dict of
# bound methods; a helper evicts the tail before either action runs.
# switch: resume_on_fault
import time

from vllm.v1.request import RequestStatus

from kv import evict_tail


class FaultHandler:
    resume_on_fault = False

    def __init__(self, engine):
        self.engine = engine
        self._actions = {True: self._resume_all, False: self._abort_all}

    def _resume_all(self, sched):
        ts = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0

    def _abort_all(self, sched):
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict_tail(sched)
        self._actions[bool(self.resume_on_fault)](sched)
