# Intended: correct. Collects the tail block ids while the requests still hold
# their blocks, aborts, then evicts the collected ids (eviction drops the hashes
# whenever it runs, so the order of the evict call does not matter).
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        pending = set()
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kvm.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks[req.request_id]
                pending.update(b.block_id for b in blocks[confirmed // mgr.block_size:]
                               if not b.is_null)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        kvm.evict_blocks(pending)
