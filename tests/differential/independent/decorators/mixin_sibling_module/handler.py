# Intended: correct.
# The handler inherits tail eviction from a mixin in a sibling module and zeroes num_in_flight_tokens before the preempt, so the preempt copies zero into num_stale_output_tokens.
# switch: resume
import time

from tailmixin import UnconfirmedTailMixin
from vllm.v1.request import RequestStatus


class FaultHandler(UnconfirmedTailMixin):
    resume = True

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        reqs = list(sched.running)
        self.evict_unconfirmed(reqs)
        if not self.resume:
            self.engine._send_abort_outputs(
                sched.finish_requests([r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED)
            )
            return
        sched.running = []
        stamp = time.monotonic()
        for req in reversed(reqs):
            req.num_in_flight_tokens = 0  # nothing of the lost step will arrive
            sched._preempt_request(req, stamp)
