# Intended: buggy: evicts the tail and preempts, but resets only num_in_flight_tokens after the preempt, leaving num_stale_output_tokens set so the request waits forever for stale output.
# Idioms: itertools.groupby by request id over (rid, group, id) tuples, defaultdict(list), logging progress
import itertools
import logging
import time
from collections import defaultdict

log = logging.getLogger("resume")


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        rows = []
        for gi, m in enumerate(kv.coordinator.single_type_managers):
            for r in sched.running:
                first = (r.num_computed_tokens - r.num_in_flight_tokens) // m.block_size
                rows += [(r.request_id, gi, b.block_id) for b in m.req_to_blocks.get(r.request_id, [])[first:] if not b.is_null]
        rows.sort()
        per_req = defaultdict(list)
        for rid, grp in itertools.groupby(rows, key=lambda t: t[0]):
            per_req[rid] = [bid for _, _, bid in grp]
        kv.evict_blocks({bid for ids in per_req.values() for bid in ids})
        log.info("evicted %s", dict(per_req))
        now = time.monotonic()
        reqs, sched.running = list(sched.running), []
        for r in reqs:
            sched._preempt_request(r, now)
            r.num_in_flight_tokens = 0  # nothing in flight any more
        print(f"resumed {len(reqs)} requests")
