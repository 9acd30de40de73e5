# Intended: correct. Stores the KV-cache manager's bound evict_blocks and the
# scheduler's finish_requests as attributes at construction and calls them
# through those attributes: tail eviction, then abort.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        sched = engine.scheduler
        self._evict = sched.kv_cache_manager.evict_blocks
        self._finish = sched.finish_requests
        self._managers = sched.kv_cache_manager.coordinator.single_type_managers

    def on_fault(self, exc):
        running = list(self.engine.scheduler.running)
        dirty = set()
        for req in running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in self._managers:
                dirty.update(b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:])
        self._evict(dirty)
        self._finish(None, RequestStatus.FINISHED_ABORTED)
