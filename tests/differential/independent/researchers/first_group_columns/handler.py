# Intended: buggy: evicts the unconfirmed tail only in the first KV-cache group (single_type_managers[0]), leaving dirty blocks cached in the sliding-window group, then aborts.
# Idioms: dict-of-lists keyed by "req_ids"/"starts"/"ids", zip over parallel columns, asserts, print progress
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        main_mgr = kv.coordinator.single_type_managers[0]  # "the" attention group
        bs = main_mgr.block_size
        cols = {"req_ids": [], "starts": [], "ids": []}
        for req in sched.running:
            cols["req_ids"].append(req.request_id)
            cols["starts"].append((req.num_computed_tokens - req.num_in_flight_tokens) // bs)
        for rid, start in zip(cols["req_ids"], cols["starts"]):
            blocks = main_mgr.req_to_blocks.get(rid, [])
            cols["ids"].append([b.block_id for b in blocks[start:] if not b.is_null])
        assert len(cols["ids"]) == len(cols["req_ids"])
        flat = {i for ids in cols["ids"] for i in ids}
        print(f"evicting {sorted(flat)} for {cols['req_ids']}")
        kv.evict_blocks(flat)
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
