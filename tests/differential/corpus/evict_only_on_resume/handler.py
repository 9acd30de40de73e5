# Intended: bug: only the resume path evicts the unconfirmed tail; the abort path frees the requests with their dirty blocks still hashed, so a new request with the same prefix hits garbage KV.
# Resume path evicts per-group tails, preempts and resets counters; abort path just aborts like upstream.
# switch: resume_on_fault
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume_on_fault = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        if not self.resume_on_fault:
            aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return

        kvm = sched.kv_cache_manager
        ts = time.monotonic()
        for req in list(reversed(sched.running)):
            boundary = req.num_computed_tokens - req.num_in_flight_tokens
            kvm.evict_blocks({
                blk.block_id
                for grp in kvm.coordinator.single_type_managers
                for blk in grp.req_to_blocks[req.request_id][boundary // grp.block_size:]
                if not blk.is_null
            })
            sched.running.remove(req)
            sched._preempt_request(req, ts)
            req.num_stale_output_tokens = 0
            req.num_in_flight_tokens = 0
