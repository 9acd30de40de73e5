# Intended: generated handler g99_00009: api=0.34 mode=abort site=helper ids=slice_first filter=none evict_call=direct release_call=direct reset=assign drain=while_pop granularity=batch flow=plain switch_style=if defect=la_skip_unknown request_ref=same collect=set snapshot=list.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        self._evict_tails(sched.kv_cache_manager, list(sched.running))
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    def _evict_tails(self, kv, reqs):
        ids = set()
        for req in reqs:
            if req.request_id not in kv.coordinator.single_type_managers[0].req_to_blocks:
                continue
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks[req.request_id]
                first = confirmed // mgr.block_size
                ids |= {b.block_id for b in blocks[first:]}
        kv.evict_blocks(ids)
