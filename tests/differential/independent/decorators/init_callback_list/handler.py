# Intended: correct.
# Cleanup callbacks are registered in a list in __init__ (evict first, then release) and on_fault runs them in order for every running request.
# switch: resume
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume = True

    def __init__(self, engine):
        self.engine = engine
        self._per_request = []
        self._per_request.append(self._evict_tail)
        self._per_request.append(self._release)

    def _evict_tail(self, sched, req, now):
        kv = sched.kv_cache_manager
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(req.request_id, [])
            kv.evict_blocks({b.block_id for b in blocks[confirmed // mgr.block_size:] if not b.is_null})

    def _release(self, sched, req, now):
        if self.resume:
            sched.running.remove(req)
            sched._preempt_request(req, now)
            req.num_stale_output_tokens = 0
            req.num_in_flight_tokens = 0
        else:
            self.engine._send_abort_outputs(
                sched.finish_requests(req.request_id, RequestStatus.FINISHED_ABORTED)
            )

    def on_fault(self, exc):
        sched = self.engine.scheduler
        now = time.monotonic()
        for req in reversed(list(sched.running)):
            for cb in self._per_request:
                cb(sched, req, now)
