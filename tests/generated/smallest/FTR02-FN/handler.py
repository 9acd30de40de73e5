# Intended: generated handler g1_1000050: api=0.34 mode=abort site=helper ids=walrus filter=hashed evict_call=kwargs release_call=getattr reset=helper_kwargs drain=pop_comprehension granularity=batch flow=plain switch_style=if defect=ft004_pool request_ref=alias.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        self._evict_tails(sched.kv_cache_manager, list(sched.running))
        aborted = getattr(sched, "finish_requests")(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    def _evict_tails(self, kv, reqs):
        ids = set()
        for req in reqs:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks[req.request_id]
                ids |= {b.block_id for b in kv.block_pool.blocks if b.block_hash is not None}
        kv.evict_blocks(**{"block_ids": ids})
