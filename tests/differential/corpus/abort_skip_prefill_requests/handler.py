# Intended: bug. Skips requests that have produced no output yet ("still in
# prefill, nothing to protect"): after a failed prefill their freshly cached
# prompt blocks are exactly the dirty ones, and they stay cached.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        ids = set()
        for req in sched.running:
            if req.num_output_tokens == 0:
                continue
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kvm.coordinator.single_type_managers:
                ids.update(b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:])
        kvm.evict_blocks(ids)
        sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
