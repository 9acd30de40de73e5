# Intended: correct.
# Aliases the bound methods it needs (evict, preempt, finish) up front; evicts each request's unconfirmed tail per group, then aborts, or preempts and zeroes the counters afterwards.
# switch: RESUME_AFTER_FAULT
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    RESUME_AFTER_FAULT = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict = sched.kv_cache_manager.evict_blocks
        preempt = sched._preempt_request
        finish = sched.finish_requests
        groups = sched.kv_cache_manager.coordinator.single_type_managers

        victims = sched.running[:]
        for req in victims:
            ok = req.num_computed_tokens - req.num_in_flight_tokens
            for grp in groups:
                blocks = grp.req_to_blocks[req.request_id]
                evict({blk.block_id for blk in blocks[ok // grp.block_size:] if not blk.is_null})

        if self.RESUME_AFTER_FAULT:
            sched.running = []
            t = time.monotonic()
            for req in reversed(victims):
                preempt(req, t)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            self.engine._send_abort_outputs(finish(None, RequestStatus.FINISHED_ABORTED))
