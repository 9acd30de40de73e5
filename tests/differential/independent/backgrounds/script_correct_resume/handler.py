# Intended: correct. Resumes after a fault: for each running request, evicts its unconfirmed tail in every KV-cache group, then preempts it back to waiting and clears its in-flight and stale counters.
# Idioms: script style: one long straight-line method, index-based while loops, debug flags and counters, prints.
import time

DEBUG = False


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        managers = kvm.coordinator.single_type_managers
        now = time.monotonic()
        n_evicted = 0
        n_preempted = 0

        # pass 1: kick the unconfirmed tail out of the prefix cache
        i = 0
        while i < len(sched.running):
            req = sched.running[i]
            rid = req.request_id
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            ids = set()
            g = 0
            while g < len(managers):
                mgr = managers[g]
                blocks = mgr.req_to_blocks.get(rid, [])
                start = confirmed // mgr.block_size
                j = start
                while j < len(blocks):
                    ids.add(blocks[j].block_id)
                    j += 1
                g += 1
            if len(ids) > 0:
                kvm.evict_blocks(ids)
                n_evicted += len(ids)
            if DEBUG:
                print("fault: req", rid, "confirmed", confirmed, "evict", sorted(ids))
            i += 1

        # pass 2: put everybody back in the waiting queue
        while len(sched.running) > 0:
            req = sched.running.pop(0)
            sched._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
            n_preempted += 1

        if DEBUG:
            print("fault handled:", type(exc).__name__, "evicted", n_evicted, "preempted", n_preempted)
