# Intended: bug. Evicts the unconfirmed tail of the first KV-cache group only;
# with a second group (sliding window) that group's dirty tail stays cached.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        mgr = sched.kv_cache_manager.coordinator.single_type_managers[0]
        ids = set()
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            ids.update(b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:])
        sched.kv_cache_manager.evict_blocks(ids)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
