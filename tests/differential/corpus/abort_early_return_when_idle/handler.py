# Intended: correct. Returns early when nothing is running; otherwise evicts the
# unconfirmed tail and aborts.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        if not sched.running:
            return
        kvm = sched.kv_cache_manager
        ids = set()
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kvm.coordinator.single_type_managers:
                ids.update(b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:])
        kvm.evict_blocks(ids)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
