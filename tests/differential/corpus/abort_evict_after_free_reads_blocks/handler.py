# Intended: bug. Aborts first and only then looks up the requests' blocks to
# evict them; the abort already dropped req_to_blocks, so nothing is evicted
# and the dirty tail stays cached.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        reqs = list(sched.running)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        stale = set()
        for req in reqs:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kvm.coordinator.single_type_managers:
                for blk in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]:
                    stale.add(blk.block_id)
        kvm.evict_blocks(stale)
