# Intended: buggy: evicts the tail correctly but preempts with drop_stale_output=True and leaves num_stale_output_tokens set, so the first good output frame after resume is dropped.
# Idioms: kwargs-heavy preempt options dict, dict-of-lists batch table, zip, f-string progress
import time

PREEMPT_KW = {"drop_stale_output": True}  # "throw away whatever the failed step produced"


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        table = {"reqs": list(sched.running), "starts": [], "groups": []}
        for r in table["reqs"]:
            table["starts"].append(r.num_computed_tokens - r.num_in_flight_tokens)
            table["groups"].append(len(kv.coordinator.single_type_managers))
        ids = set()
        for r, ok in zip(table["reqs"], table["starts"]):
            for m in kv.coordinator.single_type_managers:
                ids.update(b.block_id for b in m.req_to_blocks.get(r.request_id, [])[ok // m.block_size :] if not b.is_null)
        kv.evict_blocks(ids)
        t0 = time.monotonic()
        for r in table["reqs"]:
            sched.running.remove(r)
            sched._preempt_request(r, t0, **PREEMPT_KW)
            r.num_in_flight_tokens = 0
        print(f"resumed {len(table['reqs'])} with {PREEMPT_KW}, evicted {len(ids)}")
