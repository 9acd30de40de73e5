# Intended: generated handler g1_1100021: api=0.26 mode=abort site=helper ids=difference filter=is_null evict_call=direct release_call=partial reset=setattr_names drain=reversed_remove granularity=per_request flow=try_finally switch_style=match defect=ft005_reset_prefix_cache request_ref=same.
# vllm: 0.26
import functools
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        for req in list(sched.running):
            self._evict_tails(sched.kv_cache_manager, [req])
            aborted = functools.partial(sched.finish_requests, req.request_id)(RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
        functools.partial(sched.reset_prefix_cache)()

    def _evict_tails(self, kv, reqs):
        ids = set()
        for req in reqs:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks[req.request_id]
                first = confirmed // mgr.block_size
                ids |= {b.block_id for b in blocks if not b.is_null} - {b.block_id for b in blocks[:first]}
        kv.evict_blocks(ids)
