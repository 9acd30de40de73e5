# Intended: bug. Aborts in the try body and evicts in finally by reading the
# requests' block tables, which the abort has already emptied: nothing is
# evicted.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        running = list(sched.running)
        try:
            sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        finally:
            for req in running:
                confirmed = req.num_computed_tokens - req.num_in_flight_tokens
                for mgr in kvm.coordinator.single_type_managers:
                    tail = mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]
                    kvm.evict_blocks({b.block_id for b in tail})
