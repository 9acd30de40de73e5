# Intended: buggy: the eviction starts at block 0 instead of at the confirmed boundary, so it also evicts the clean prefix that earlier successful steps computed and the resumed request loses its prefix-cache reuse.
# A classmethod collects block ids through a staticmethod per request, then the handler preempts with the in-flight counters cleared.
# switch: resume
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume = True

    def __init__(self, engine):
        self.engine = engine

    @staticmethod
    def _owned_blocks(mgr, req):
        return [b.block_id for b in mgr.req_to_blocks.get(req.request_id, ()) if not b.is_null]

    @classmethod
    def _suspect_blocks(cls, sched, requests):
        ids = set()
        for req in requests:
            for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
                ids.update(cls._owned_blocks(mgr, req))
        return ids

    def on_fault(self, exc):
        sched = self.engine.scheduler
        reqs = list(sched.running)
        sched.kv_cache_manager.evict_blocks(self._suspect_blocks(sched, reqs))
        if not self.resume:
            self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
            return
        sched.running.clear()
        ts = time.monotonic()
        for req in reversed(reqs):
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
