# Intended: over-eviction. Sweeps the whole block pool and evicts every block
# that has a hash, then aborts: dirty blocks go, and so does every clean one.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        pool = sched.kv_cache_manager.block_pool
        hashed = [blk.block_id for blk in pool.blocks if blk.block_hash is not None]
        sched.kv_cache_manager.evict_blocks(set(hashed))
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
