# Intended: generated handler g1_01483: api=0.26 mode=abort site=lambda_local ids=star_unpack filter=hashed evict_call=getattr release_call=getattr reset=chained drain=reversed_remove granularity=batch flow=plain switch_style=if defect=ft007_computed request_ref=same.
# vllm: 0.26
from vllm.v1.request import RequestStatus


def tail_ids(kv, reqs):
    ids = set()
    for req in reqs:
        confirmed = req.num_computed_tokens
        for mgr in kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks[req.request_id]
            first = confirmed // mgr.block_size
            ids = {*ids, *(b.block_id for b in blocks[first:] if b.block_hash is not None)}
    return ids


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict = lambda kv, reqs: getattr(kv, "evict_blocks")(tail_ids(kv, reqs))
        evict(sched.kv_cache_manager, list(sched.running))
        aborted = getattr(sched, "finish_requests")(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
