# Intended: bug: the unconfirmed tail is evicted only on the abort path; on resume the preempted requests free their dirty blocks with hashes intact and re-hit them.
# Abort path evicts per-group tails and aborts; resume path preempts and clears the counters.
# switch: RESUME_REQUESTS
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    RESUME_REQUESTS = False

    def __init__(self, engine):
        self.engine = engine

    def _abort(self, sched):
        kvm = sched.kv_cache_manager
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for g in kvm.coordinator.single_type_managers:
                kvm.evict_blocks({b.block_id for b in g.req_to_blocks[req.request_id][confirmed // g.block_size:]})
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))

    def _resume(self, sched):
        now = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            sched._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0

    def on_fault(self, exc):
        sched = self.engine.scheduler
        (self._resume if self.RESUME_REQUESTS else self._abort)(sched)
