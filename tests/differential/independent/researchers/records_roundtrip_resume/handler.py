# Intended: correct. Snapshots running requests as records, converts them to columns to compute each request's first dirty block per KV-cache group, converts back to records, evicts every tail and preempts each request, resetting both in-flight counters after the preempt.
# Idioms: records -> dict-of-lists -> records round trip, list comprehensions with computed offsets, try/except per request, print progress, helper module
import time

from frames import to_columns, to_records


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.failed = []

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        mgrs = kvm.coordinator.single_type_managers

        # 1) one record per (request, group)
        recs = []
        for req in sched.running:
            for g, mgr in enumerate(mgrs):
                recs.append(
                    {
                        "req_id": req.request_id,
                        "group": g,
                        "computed": req.num_computed_tokens,
                        "in_flight": req.num_in_flight_tokens,
                        "bs": mgr.block_size,
                    }
                )
        cols = to_columns(recs, ["req_id", "group", "computed", "in_flight", "bs"])

        # 2) column arithmetic: first possibly-dirty block index
        cols["confirmed"] = [c - f for c, f in zip(cols["computed"], cols["in_flight"])]
        cols["start"] = [c // bs for c, bs in zip(cols["confirmed"], cols["bs"])]

        # 3) back to rows, pull the ids
        evict = set()
        for row in to_records(cols):
            try:
                blocks = mgrs[row["group"]].req_to_blocks.get(row["req_id"], [])
                evict |= {b.block_id for b in blocks[row["start"] :] if not b.is_null}
            except Exception as e:  # noqa: BLE001
                print(f"  skip {row['req_id']}/{row['group']}: {e}")
                self.failed.append(row)
        assert not self.failed, "every tail must be evictable before the blocks are freed"
        kvm.evict_blocks(evict)
        print(f"evicted {len(evict)} blocks from {len(recs)} (request, group) rows")

        # 4) resume: back to waiting, nothing in flight, nothing stale
        t = time.monotonic()
        for req in list(sched.running):
            try:
                sched.running.remove(req)
                sched._preempt_request(req, t)
            finally:
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
