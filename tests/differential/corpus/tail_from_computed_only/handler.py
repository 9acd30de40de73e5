# Intended: bug: the tail start is num_computed_tokens // block_size, ignoring num_in_flight_tokens, so the blocks the failed step filled (all full prompt blocks on a prefill fault, the just-filled block on a decode fault) keep their hashes.
# Per running request and group, evicts blocks from the last computed block onward, then aborts.
from vllm.v1.request import RequestStatus


def evict_partial_blocks(scheduler):
    kvm = scheduler.kv_cache_manager
    for request in scheduler.running:
        for mgr in kvm.coordinator.single_type_managers:
            first = request.num_computed_tokens // mgr.block_size
            ids = {b.block_id for b in mgr.req_to_blocks[request.request_id][first:] if not b.is_null}
            if ids:
                kvm.evict_blocks(ids)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        evict_partial_blocks(scheduler)
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
