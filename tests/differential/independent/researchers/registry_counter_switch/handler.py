# Intended: correct. Looks its config up in a module-level registry, counts and evicts the unconfirmed tail of every running request in every KV-cache group, then aborts or (switch on) preempts with both in-flight counters reset afterwards.
# Idioms: global module-level registry and stats dict, cfg.get defaults, collections.Counter per group, f-strings, switch attribute, helper module
# switch: keep_requests
import time
from collections import Counter

from vllm.v1.request import RequestStatus

import recovery_registry as reg


class FaultHandler:
    keep_requests = False

    def __init__(self, engine, profile="default"):
        self.engine = engine
        self.cfg = reg.lookup(profile)

    def on_fault(self, exc):
        reg.STATS["faults"] += 1
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        per_group = Counter()
        ids = set()
        if self.cfg.get("evict", True):
            for gi, m in enumerate(kvm.coordinator.single_type_managers):
                bs = m.block_size
                for r in sched.running:
                    ok_tokens = r.num_computed_tokens - r.num_in_flight_tokens
                    row = m.req_to_blocks.get(r.request_id, [])
                    for b in row[ok_tokens // bs :]:
                        if b.is_null:
                            continue
                        ids.add(b.block_id)
                        per_group[f"group{gi}"] += 1
            kvm.evict_blocks(ids)
        if reg.STATS["faults"] % self.cfg.get("log_every", 1) == 0:
            print(f"fault #{reg.STATS['faults']}: evicted {dict(per_group)} ({exc})")

        if self.keep_requests:
            ts = time.monotonic()
            batch, sched.running = sched.running, []
            for r in batch:
                sched._preempt_request(r, ts)
                if self.cfg.get("reset_counters", True):
                    r.num_in_flight_tokens = 0
                    r.num_stale_output_tokens = 0
        else:
            done = sched.finish_requests([r.request_id for r in sched.running], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(done)
