# Intended: bug: on resume it clears num_stale_output_tokens but leaves num_in_flight_tokens set, so the resumed request still accounts for output of the failed step that will never arrive.
# Evicts each running request's unconfirmed tail in all groups, then preempts it and clears its stale-output count.
import time


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        now = time.monotonic()
        for req in sched.running[::-1]:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            ids = set()
            for mgr in kvm.coordinator.single_type_managers:
                ids.update(b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:] if not b.is_null)
            kvm.evict_blocks(ids)
            sched._preempt_request(req, now)
            req.num_stale_output_tokens = 0
        sched.running.clear()
