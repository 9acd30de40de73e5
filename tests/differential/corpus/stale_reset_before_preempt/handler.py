# Intended: bug: resets num_stale_output_tokens before the preempt, but _preempt_request copies the still-set num_in_flight_tokens into it, so the resumed request is left waiting for stale output.
# Evicts the per-group unconfirmed tail, clears the stale-output count, then preempts each running request.
import time


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        requests = list(sched.running)
        sched.running.clear()
        ts = time.monotonic()
        for i, req in enumerate(reversed(requests)):
            boundary = req.num_computed_tokens - req.num_in_flight_tokens
            tail = set()
            for mgr in kvm.coordinator.single_type_managers:
                for blk in mgr.req_to_blocks[req.request_id][boundary // mgr.block_size:]:
                    if not blk.is_null:
                        tail.add(blk.block_id)
            kvm.evict_blocks(tail)
            req.num_stale_output_tokens = 0
            req.drop_stale_output = False
            sched._preempt_request(req, ts)
