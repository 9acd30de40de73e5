# Intended: correct. Builds the tail id set in a comprehension and evicts it
# only when it is non-empty (an empty tail needs no eviction).
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        ids = {
            b.block_id
            for r in sched.running
            for m in kvm.coordinator.single_type_managers
            for b in m.req_to_blocks[r.request_id][
                (r.num_computed_tokens - r.num_in_flight_tokens) // m.block_size:]
            if not b.is_null and b.block_hash is not None
        }
        if ids:
            kvm.evict_blocks(ids)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
