# Intended: correct. Finds the tail with enumerate over each block list,
# keeping indices at or past the confirmed boundary, then aborts.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        kvm = scheduler.kv_cache_manager
        doomed = []
        for request in scheduler.running:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for manager in kvm.coordinator.single_type_managers:
                first_dirty = confirmed // manager.block_size
                for idx, block in enumerate(manager.req_to_blocks[request.request_id]):
                    if idx >= first_dirty and not block.is_null:
                        doomed.append(block.block_id)
        kvm.evict_blocks(set(doomed))
        scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
