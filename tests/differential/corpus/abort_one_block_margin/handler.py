# Intended: over-eviction. Evicts from one block before the confirmed boundary
# "to be safe": that block is clean and loses its cache entry.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        ids = set()
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
                start = max(confirmed // mgr.block_size - 1, 0)
                ids |= {b.block_id for b in mgr.req_to_blocks[req.request_id][start:]}
        sched.kv_cache_manager.evict_blocks(ids)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
