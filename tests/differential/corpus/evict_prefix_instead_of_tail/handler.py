# Intended: bug: slices blocks[:start] instead of blocks[start:], evicting the confirmed prefix (good cache) and leaving the dirty tail hashed.
# Per running request and group computes the confirmed block index and evicts that slice, then aborts.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        kvm = scheduler.kv_cache_manager
        for request in scheduler.running:
            start = request.num_computed_tokens - request.num_in_flight_tokens
            for manager in kvm.coordinator.single_type_managers:
                blocks = manager.req_to_blocks[request.request_id]
                kvm.evict_blocks({b.block_id for b in blocks[: start // manager.block_size] if not b.is_null})
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
