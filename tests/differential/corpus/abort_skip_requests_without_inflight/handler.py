# Intended: correct. Skips requests with nothing in flight (they have no dirty
# tail) and evicts the tail of the others before aborting.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        ids = set()
        for req in sched.running:
            if req.num_in_flight_tokens == 0:
                continue
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kvm.coordinator.single_type_managers:
                for blk in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]:
                    if blk.is_null:
                        continue
                    ids.add(blk.block_id)
        kvm.evict_blocks(ids)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
