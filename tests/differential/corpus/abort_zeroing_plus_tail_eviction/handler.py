# Intended: correct. Records the tail for zeroing (a no-op unless the model
# needs it) and evicts the same tail, both before the abort.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _scrub(self, sched):
        kvm = sched.kv_cache_manager
        to_evict = set()
        for req in list(sched.running):
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            kvm.record_blocks_for_zeroing(
                req.request_id, confirmed // sched.block_size * sched.block_size)
            for mgr in kvm.coordinator.single_type_managers:
                for blk in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]:
                    if not blk.is_null:
                        to_evict.add(blk.block_id)
        kvm.evict_blocks(to_evict)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        self._scrub(sched)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
