# Intended: generated handler g1_00953: api=0.34 mode=abort site=lambda_local ids=walrus filter=hashed evict_call=kwargs release_call=getattr reset=helper_kwargs drain=pop_comprehension granularity=batch flow=plain switch_style=if defect=ft004_pool request_ref=alias.
from vllm.v1.request import RequestStatus


def tail_ids(kv, reqs):
    ids = set()
    for req in reqs:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks[req.request_id]
            ids |= {b.block_id for b in kv.block_pool.blocks if b.block_hash is not None}
    return ids


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict = lambda kv, reqs: kv.evict_blocks(**{"block_ids": tail_ids(kv, reqs)})
        evict(sched.kv_cache_manager, list(sched.running))
        aborted = getattr(sched, "finish_requests")(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
