# Intended: buggy: on resume it resets the stale-output counters through a list of attribute names that omits num_in_flight_tokens, so the requeued request keeps the lost step's in-flight count and its confirmed boundary is off.
# Resets counters with setattr()/getattr() on names held in a tuple, and chooses the release method with a conditional expression.
# switch: resume
import time

from vllm.v1.request import RequestStatus

import evict

RESET_AFTER_PREEMPT = ("num_stale_output_tokens", "num_output_placeholders")


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.resume = False

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict.unconfirmed_tails(sched.kv_cache_manager, list(sched.running))
        (self._requeue_all if self.resume else self._abort_all)(sched)

    def _requeue_all(self, sched):
        ts = time.monotonic()
        for req in list(reversed(sched.running)):
            sched.running.remove(req)
            sched._preempt_request(req, ts)
            for name in RESET_AFTER_PREEMPT:
                if getattr(req, name, 0):
                    setattr(req, name, 0)

    def _abort_all(self, sched):
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
