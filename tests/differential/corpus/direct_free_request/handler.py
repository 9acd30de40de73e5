# Intended: correct.
# Aborts by hand: for each running request (popped from the end), evict its unconfirmed tail in all groups, mark it FINISHED_ABORTED and call _free_request; waiting requests go through finish_requests.
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        aborted = []
        while sched.running:
            req = sched.running.pop()
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            dirty = set()
            for mgr in kvm.coordinator.single_type_managers:
                dirty |= {
                    b.block_id
                    for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]
                    if not b.is_null
                }
            kvm.evict_blocks(dirty)
            req.status = RequestStatus.FINISHED_ABORTED
            sched._free_request(req)
            aborted.append(req)
        aborted += sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
