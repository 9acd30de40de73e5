# Intended: correct.
# Registers the release (abort or preempt) first and the tail eviction second with contextlib.ExitStack.callback, so LIFO unwinding runs the eviction before anything is freed.
# switch: resume_requests
import time
from contextlib import ExitStack

from vllm.v1.request import RequestStatus

import kvtail


class FaultHandler:
    resume_requests = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        victims = list(sched.running)
        with ExitStack() as stack:
            # Unwound last-in first-out: the eviction (registered second) runs first.
            stack.callback(self._release, sched, victims)
            stack.callback(kvtail.evict_unconfirmed, sched.kv_cache_manager, victims)

    def _release(self, sched, victims):
        if not self.resume_requests:
            aborted = sched.finish_requests([r.request_id for r in victims], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        ts = time.monotonic()
        for req in reversed(victims):
            sched.running.remove(req)
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = req.num_stale_output_tokens = 0
