# Intended: correct.
# Computes the boundary block with divmod and the step's span with the -(-a // b) ceiling idiom, and takes the tail with a guarded negative slice blocks[-k:] through keyword-only helper parameters.
from vllm.v1.request import RequestStatus

import spans


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.stats = {}

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        dirty = set()
        for req in sched.running:
            for mgr in kv.coordinator.single_type_managers:
                ids, span = spans.tail_block_ids(
                    mgr.req_to_blocks.get(req.request_id, []),
                    confirmed=req.num_computed_tokens - req.num_in_flight_tokens,
                    computed=req.num_computed_tokens,
                    block_size=mgr.block_size,
                )
                dirty.update(ids)
                self.stats[req.request_id] = max(self.stats.get(req.request_id, 0), span)
        kv.evict_blocks(dirty)
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
