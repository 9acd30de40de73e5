# Intended: correct.
# Idioms: kv.get_blocks(rid).blocks zipped with per-group block sizes, dict comprehension of confirmed boundaries keyed by request id, BlockPool.evict_blocks called directly, abort only.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s = self.engine.scheduler
        kv = s.kv_cache_manager
        sizes = [m.block_size for m in kv.coordinator.single_type_managers]
        edge = {r.request_id: r.num_computed_tokens - r.num_in_flight_tokens for r in s.running}
        kv.block_pool.evict_blocks({b.block_id for rid, c in edge.items()
                                    for bs, bl in zip(sizes, kv.get_blocks(rid).blocks)
                                    for b in bl[c // bs:] if not b.is_null})
        self.engine._send_abort_outputs(s.finish_requests(edge, RequestStatus.FINISHED_ABORTED))
