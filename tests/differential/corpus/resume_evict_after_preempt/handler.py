# Intended: bug. Preempts each request and only then evicts its tail from its
# block table, which the preempt has emptied: nothing is evicted.
import time


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _evict_request_tail(self, sched, req, confirmed):
        kvm = sched.kv_cache_manager
        for mgr in kvm.coordinator.single_type_managers:
            kvm.evict_blocks({b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]})

    def on_fault(self, exc):
        sched = self.engine.scheduler
        ts = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            sched._preempt_request(req, ts)
            self._evict_request_tail(sched, req, confirmed)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
