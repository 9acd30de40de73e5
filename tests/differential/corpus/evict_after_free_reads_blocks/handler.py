# Intended: bug: it aborts first and only then reads req_to_blocks to find the tail, but the free already popped the request's block lists, so nothing is evicted and the dirty hashes stay cached.
# Aborts all requests, then evicts the unconfirmed tail of each aborted request in every group.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

        kvm = scheduler.kv_cache_manager
        stale = set()
        for request in aborted:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for mgr in kvm.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks.get(request.request_id, [])
                stale.update(b.block_id for b in blocks[confirmed // mgr.block_size:] if not b.is_null)
        kvm.evict_blocks(stale)
