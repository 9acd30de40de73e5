# Intended: buggy: evicts the tail and preempts, then clears num_stale_output_tokens but leaves num_in_flight_tokens set, so the resumed request's confirmed boundary is off by the lost step.
# Idioms: module-level cache dict in a helper module, map over request list, sum of list lengths, print progress
import time

from helpers import remember, tail_ids


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        mgrs = kvm.coordinator.single_type_managers
        reqs = list(sched.running)
        bounds = list(map(remember, reqs))
        lists = [tail_ids(mgrs, r.request_id, b) for r, b in zip(reqs, bounds)]
        print(f"evicting {sum(map(len, lists))} tail blocks")
        kvm.evict_blocks(set().union(*lists))
        ts = time.monotonic()
        for r in reqs:
            sched.running.remove(r)
            sched._preempt_request(r, ts)
            r.num_stale_output_tokens = 0  # don't wait for the lost frame
