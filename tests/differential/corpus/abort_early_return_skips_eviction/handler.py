# Intended: bug. Treats a RuntimeError (how collective failures surface) as
# "nothing was computed" and aborts on an early-return path that skips the tail
# eviction; the dirty tail stays cached on that path.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _evict_tail(self, sched):
        ids = set()
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
                ids.update(b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:])
        sched.kv_cache_manager.evict_blocks(ids)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        if isinstance(exc, RuntimeError):
            sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            return
        self._evict_tail(sched)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
