# Intended: correct.
# Evicts the unconfirmed tail of each running request in every group and, for models that need it, also records those blocks for zeroing (block-aligned start) before aborting.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        kvm = scheduler.kv_cache_manager
        managers = kvm.coordinator.single_type_managers
        for request in scheduler.running:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            ids = set()
            for mgr in managers:
                first_block = confirmed // mgr.block_size
                ids.update(b.block_id for b in mgr.req_to_blocks[request.request_id][first_block:] if not b.is_null)
            kvm.evict_blocks(ids)
            if getattr(scheduler, "needs_kv_cache_zeroing", False):
                bs = managers[0].block_size
                kvm.record_blocks_for_zeroing(request.request_id, (confirmed // bs) * bs)
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
