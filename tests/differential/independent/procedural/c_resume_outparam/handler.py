# Intended: correct.
# Idioms: helper module with a many-positional-argument function filling out-parameters (a list of ids and a per-group count list), while loops with manual counters, a pop-until-empty loop to preempt in reverse order, counters reset after each preempt.
import logging
import time

import tail_ids_util

log = logging.getLogger("ft.resume")


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        managers = kvm.coordinator.single_type_managers
        ngroups = len(managers)

        block_ids = []
        per_group = []
        tail_ids_util.clear_counts(per_group, ngroups)

        n = len(sched.running)
        i = 0
        while i < n:
            r = sched.running[i]
            tail_ids_util.gather_tail_block_ids(managers, ngroups, r.request_id,
                                                r.num_computed_tokens, r.num_in_flight_tokens,
                                                block_ids, per_group)
            i = i + 1

        if len(block_ids) > 0:
            s = set()
            k = 0
            while k < len(block_ids):
                s.add(block_ids[k])
                k = k + 1
            kvm.evict_blocks(s)

        ts = time.monotonic()
        resumed = 0
        while len(sched.running) > 0:
            r = sched.running.pop()
            sched._preempt_request(r, ts)
            # the lost step's output never arrives: nothing is stale,
            # nothing is in flight any more
            r.num_in_flight_tokens = 0
            r.num_stale_output_tokens = 0
            resumed = resumed + 1
        log.warning("fault %r: %d requests back to waiting, tail blocks per group %s",
                    exc, resumed, per_group)
