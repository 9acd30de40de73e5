# Intended: correct. Walks a copy of the running queue; for each request evicts
# its own tail, then aborts that one request.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _evict_request_tail(self, kvm, req):
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        ids = set()
        for mgr in kvm.coordinator.single_type_managers:
            for blk in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]:
                if not blk.is_null:
                    ids.add(blk.block_id)
        if ids:
            kvm.evict_blocks(ids)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        for req in list(sched.running):
            self._evict_request_tail(sched.kv_cache_manager, req)
            sched.finish_requests(req.request_id, RequestStatus.FINISHED_ABORTED)
