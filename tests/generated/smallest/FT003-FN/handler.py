# Intended: generated handler g1_1100013: api=0.26 mode=abort site=classmethod ids=star_unpack filter=hashed evict_call=direct release_call=direct reset=chained drain=pop_comprehension granularity=batch flow=plain switch_style=match defect=ft003_range_drop request_ref=same.
# vllm: 0.26
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        type(self)._evict_tails(sched.kv_cache_manager, list(sched.running))
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    @classmethod
    def _evict_tails(cls, kv, reqs):
        ids = set()
        for req in reqs:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks[req.request_id]
                first = confirmed // mgr.block_size
                ids = {*ids, *(b.block_id for b in blocks[first:] if b.block_id < len(blocks))}
        kv.evict_blocks(ids)
