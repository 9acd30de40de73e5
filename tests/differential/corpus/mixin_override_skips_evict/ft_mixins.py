"""Reusable pieces for fault handlers."""
import time

from vllm.v1.request import RequestStatus


class EvictingFaultHandlerBase:
    """Template: before_release() evicts the unconfirmed tail, release() frees."""

    resume = False

    def __init__(self, engine):
        self.engine = engine

    def before_release(self, scheduler):
        kvm = scheduler.kv_cache_manager
        ids = set()
        for req in scheduler.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kvm.coordinator.single_type_managers:
                ids.update(b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]
                           if not b.is_null)
        kvm.evict_blocks(ids)

    def release(self, scheduler):
        if self.resume:
            ts = time.monotonic()
            while scheduler.running:
                req = scheduler.running.pop()
                scheduler._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            self.engine._send_abort_outputs(
                scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED))

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        self.before_release(scheduler)
        self.release(scheduler)
