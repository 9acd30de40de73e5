# Intended: correct. Removes the tail blocks' hashes from the block pool's
# hash map by hand (pop(hash, block_id)) instead of calling evict_blocks, then
# aborts.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _forget_tail(self, sched):
        pool = sched.kv_cache_manager.block_pool
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
                for blk in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]:
                    if blk.block_hash is None or blk.is_null:
                        continue
                    pool.cached_block_hash_to_block.pop(blk.block_hash, blk.block_id)
                    blk.reset_hash()

    def on_fault(self, exc):
        sched = self.engine.scheduler
        self._forget_tail(sched)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
