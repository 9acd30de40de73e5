# Intended: buggy: it deletes each request from the running list while walking that list with an index that still advances, so every second running request is skipped: it is neither evicted nor preempted, and its dirty tail blocks stay cached.
# Idioms: a while loop with a manual index over a list that the loop body shrinks (del lst[i]), inline block arithmetic with // and %, a helper function with positional arguments, counters reset after each preempt.
import time


def evict_request_tail(kvm, mgrs, rid, computed, in_flight):
    confirmed = computed - in_flight
    ids = set()
    g = 0
    while g < len(mgrs):
        bs = mgrs[g].block_size
        held = mgrs[g].req_to_blocks.get(rid)
        if held:
            k = (confirmed - confirmed % bs) // bs
            while k < len(held):
                if not held[k].is_null:
                    ids.add(held[k].block_id)
                k += 1
        g += 1
    if ids:
        kvm.evict_blocks(ids)
    return len(ids)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.requeued = 0

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        mgrs = kvm.coordinator.single_type_managers
        ts = time.monotonic()
        i = 0
        while i < len(sched.running):
            req = sched.running[i]
            evict_request_tail(kvm, mgrs, req.request_id,
                               req.num_computed_tokens, req.num_in_flight_tokens)
            del sched.running[i]
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
            self.requeued += 1
            i += 1
