# Intended: correct.
# A chain of three small methods (_stop -> _scrub -> _park), each calling the next, computes the confirmed boundary, evicts the tail in every group, and only then preempts or aborts.
# switch: resume
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume = True

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        self._ts = time.monotonic()
        for req in reversed(list(sched.running)):
            self._stop(sched, req)

    def _stop(self, sched, req):
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        self._scrub(sched, req, confirmed)

    def _scrub(self, sched, req, confirmed):
        kv = sched.kv_cache_manager
        for mgr in kv.coordinator.single_type_managers:
            idx = confirmed // mgr.block_size
            kv.evict_blocks({b.block_id for b in mgr.req_to_blocks.get(req.request_id, [])[idx:] if not b.is_null})
        self._park(sched, req)

    def _park(self, sched, req):
        if self.resume:
            sched.running.remove(req)
            sched._preempt_request(req, self._ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
        else:
            self.engine._send_abort_outputs(sched.finish_requests([req.request_id], RequestStatus.FINISHED_ABORTED))
