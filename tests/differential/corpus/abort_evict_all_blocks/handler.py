# Intended: over-eviction. Evicts every block of every running request, clean
# confirmed prefix included, before aborting (no dirty block is left cached).
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _all_blocks(self, sched):
        return {
            blk.block_id
            for req in sched.running
            for mgr in sched.kv_cache_manager.coordinator.single_type_managers
            for blk in mgr.req_to_blocks[req.request_id]
            if not blk.is_null
        }

    def on_fault(self, exc):
        sched = self.engine.scheduler
        sched.kv_cache_manager.evict_blocks(self._all_blocks(sched))
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
