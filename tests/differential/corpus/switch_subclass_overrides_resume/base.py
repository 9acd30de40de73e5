import time

from vllm.v1.request import RequestStatus


class RecoveringHandler:
    resume_on_fault = False

    def __init__(self, engine):
        self.engine = engine

    def _evict_tail(self, sched):
        kvm = sched.kv_cache_manager
        ids = set()
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kvm.coordinator.single_type_managers:
                ids.update(b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:])
        kvm.evict_blocks(ids)

    def _resume(self, sched):
        ts = time.monotonic()
        while sched.running:
            request = sched.running.pop()
            sched._preempt_request(request, ts)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0

    def _abort(self, sched):
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        self._evict_tail(sched)
        if self.resume_on_fault:
            self._resume(sched)
        else:
            self._abort(sched)
