# Intended: bug. For each request: abort it, then evict its tail by reading its
# block table, which the abort emptied; nothing is evicted.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        for req in list(sched.running):
            sched.finish_requests(req.request_id, RequestStatus.FINISHED_ABORTED)
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kvm.coordinator.single_type_managers:
                kvm.evict_blocks({b.block_id for b in
                                  mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]})
