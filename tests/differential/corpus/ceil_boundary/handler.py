# Intended: bug: rounds the confirmed boundary up to the next block (ceil division), so the block holding both confirmed and unconfirmed tokens, the one a decode step just filled and cached, is never evicted.
# Evicts from the first block wholly after the confirmed tokens in every group, then aborts or preempts-and-resets.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus


def cdiv(a, b):
    return -(-a // b)


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            ids = [
                b.block_id
                for m in kvm.coordinator.single_type_managers
                for b in m.req_to_blocks[req.request_id][cdiv(confirmed, m.block_size):]
                if not b.is_null
            ]
            kvm.evict_blocks(set(ids))
        if self.RESUME:
            ts = time.monotonic()
            for req in reversed(sched.running):
                req.num_in_flight_tokens = 0
                sched._preempt_request(req, ts)
            sched.running = []
            return
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
