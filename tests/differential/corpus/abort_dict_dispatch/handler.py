# Intended: correct. Fault steps are bound methods kept in a dict and called in
# order through it: evict the unconfirmed tail, then abort.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self._steps = {
            "evict": self._evict_dirty_tail,
            "abort": self._abort_all,
        }

    def _evict_dirty_tail(self, sched):
        ids = set()
        for req in sched.running:
            ok = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
                ids |= {b.block_id for b in mgr.req_to_blocks[req.request_id][ok // mgr.block_size:]
                        if not b.is_null}
        sched.kv_cache_manager.evict_blocks(ids)

    def _abort_all(self, sched):
        return sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        self._steps["evict"](sched)
        self._steps["abort"](sched)
