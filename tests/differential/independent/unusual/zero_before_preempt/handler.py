# Intended: correct.
# Evicts the tail first, then zeroes num_in_flight_tokens *before* _preempt_request (which copies it into num_stale_output_tokens, so both end at zero); a conditional expression picks the per-request method, enumerate(start=1) numbers the log, and requests are visited sorted by key.
# switch: resume
import logging
import time

from vllm.v1.request import RequestStatus

import helpers

log = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.resume = False

    def on_fault(self, exc):
        sched = self.engine.scheduler
        victims = sorted(sched.running, key=lambda r: r.arrival_time)
        helpers.evict_tails(sched.kv_cache_manager, victims)
        handle = self._resume_one if self.resume else self._abort_one
        now = time.monotonic()
        for n, req in enumerate(victims, start=1):
            log.debug("fault %s: request %d/%d %s", exc, n, len(victims), req.request_id)
            handle(sched, req, now)

    def _resume_one(self, sched, req, now):
        sched.running.remove(req)
        req.num_in_flight_tokens = 0  # _preempt_request copies this into num_stale_output_tokens
        sched._preempt_request(req, now)

    def _abort_one(self, sched, req, now):
        self.engine._send_abort_outputs(sched.finish_requests([req.request_id], RequestStatus.FINISHED_ABORTED))
