# Intended: correct.
# Resume-only: pops requests off a copy of the running list, enumerates each group's blocks to pick those at or past the confirmed boundary, evicts them, preempts, then resets the stale/in-flight counters.
import time


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        to_preempt = list(sched.running)
        sched.running = []
        stamp = time.monotonic()
        while to_preempt:
            req = to_preempt.pop()
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            victims = set()
            for mgr in kv.coordinator.single_type_managers:
                first = confirmed // mgr.block_size
                for idx, blk in enumerate(mgr.req_to_blocks[req.request_id]):
                    if idx >= first and not blk.is_null:
                        victims.add(blk.block_id)
            kv.evict_blocks(victims)
            sched._preempt_request(req, stamp)
            req.num_stale_output_tokens = 0
            req.num_in_flight_tokens = 0
