# Intended: over-eviction on both paths. Evicts every block of every running
# request before the abort/resume branch (no dirty block survives, the clean
# prefix is lost); the resume path resets its counters.
# switch: resume_on_fault
import time

from vllm.v1.request import RequestStatus


def evict_request_blocks(scheduler):
    kvm = scheduler.kv_cache_manager
    ids = set()
    for request in scheduler.running:
        for manager in kvm.coordinator.single_type_managers:
            ids.update(block.block_id for block in manager.req_to_blocks[request.request_id])
    kvm.evict_blocks(ids)


class FaultHandler:
    resume_on_fault = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict_request_blocks(sched)
        if self.resume_on_fault:
            ts = time.monotonic()
            while sched.running:
                req = sched.running.pop()
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
