# Intended: buggy: after the preempt the mixin clears num_stale_output_tokens but leaves num_in_flight_tokens set, so the resumed request's confirmed boundary (num_computed_tokens - num_in_flight_tokens) is off by the lost step.
# The handler inherits its resume logic from a mixin class in a sibling module.
# switch: resume
from recovery import RequeueMixin
from vllm.v1.request import RequestStatus


class FaultHandler(RequeueMixin):
    resume = True

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        if self.resume:
            self.requeue_running()
            return
        sched = self.engine.scheduler
        for request in sched.running:
            sched.kv_cache_manager.evict_blocks(self._unconfirmed(request))
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
