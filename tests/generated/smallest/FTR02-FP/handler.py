# Intended: generated handler g1_1000065: api=0.34 mode=abort site=helper ids=difference filter=hashed evict_call=getattr release_call=kwargs reset=assign drain=reversed_remove granularity=batch flow=plain switch_style=dict_dispatch defect=none request_ref=copy.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        self._evict_tails(sched.kv_cache_manager, list(sched.running))
        aborted = sched.finish_requests(**{"request_ids": None, "finished_status": RequestStatus.FINISHED_ABORTED})
        self.engine._send_abort_outputs(aborted)

    def _evict_tails(self, kv, reqs):
        ids = set()
        for req in reqs:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks[req.request_id]
                first = confirmed // mgr.block_size
                ids |= {b.block_id for b in blocks if b.block_hash is not None} - {b.block_id for b in blocks[:first]}
        getattr(kv, "evict_blocks")(ids)
