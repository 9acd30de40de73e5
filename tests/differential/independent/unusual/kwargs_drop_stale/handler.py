# Intended: buggy: on resume it forwards drop_stale_output=True to _preempt_request (and only clears num_in_flight_tokens), so the requeued request is marked to drop its next output frame as stale; the failed step's frame never arrives, so the first good frame after resume is dropped.
# Forwards preemption options through *args/**kwargs from a per-path options dict.
# switch: resume
import time

from vllm.v1.request import RequestStatus

import tail

PREEMPT_OPTS = {"drop_stale_output": True}  # the lost step's output must not be delivered


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.resume = False

    def _forward(self, fn, *args, **kwargs):
        return fn(*args, **kwargs)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        tail.evict_unconfirmed(sched.kv_cache_manager, sched.running)
        if not self.resume:
            aborted = self._forward(sched.finish_requests, None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        ts = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            self._forward(sched._preempt_request, req, ts, **PREEMPT_OPTS)
            req.num_in_flight_tokens = 0
