# Intended: bug: evicts every block of every running request in every group, including the confirmed prefix written by successful steps, throwing away good prefix cache.
# Collects all block ids of the running requests, evicts them, then aborts or preempts-and-resets.
# switch: resume
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        ids = {
            blk.block_id
            for mgr in kvm.coordinator.single_type_managers
            for req in sched.running
            for blk in mgr.req_to_blocks[req.request_id]
            if not blk.is_null
        }
        kvm.evict_blocks(ids)
        if not self.resume:
            self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
            return
        ts = time.monotonic()
        running, sched.running = sched.running, []
        for req in reversed(running):
            req.num_in_flight_tokens = 0
            sched._preempt_request(req, ts)
