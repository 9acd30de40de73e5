# Intended: buggy: _evict_tails is a generator function (it yields each request after evicting it), and on_fault calls it as a plain statement without iterating it, so its body never runs and no block is evicted before the preempt or abort.
# A generator that evicts and yields each request is meant to be the first stage of the cleanup.
# switch: resume
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume = True

    def __init__(self, engine):
        self.engine = engine

    def _evict_tails(self, requests):
        kv = self.engine.scheduler.kv_cache_manager
        for req in requests:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                tail = mgr.req_to_blocks.get(req.request_id, [])[confirmed // mgr.block_size:]
                kv.evict_blocks({b.block_id for b in tail if not b.is_null})
            yield req

    def on_fault(self, exc):
        sched = self.engine.scheduler
        reqs = list(sched.running)
        self._evict_tails(reqs)
        if self.resume:
            sched.running = []
            now = time.monotonic()
            for req in reversed(reqs):
                sched._preempt_request(req, now)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            aborted = sched.finish_requests([r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
