# Intended: buggy: aborts first and collects the tail blocks afterwards from req_to_blocks, which the free already emptied, so nothing is evicted.
# Idioms: tracker class recording requests before acting, defaultdict(list) keyed by request, itertools.chain flattening, print progress
import itertools
from collections import defaultdict

from vllm.v1.request import RequestStatus


class Tracker:
    def __init__(self):
        self.seen = []  # (req_id, confirmed) rows

    def note(self, req):
        self.seen.append((req.request_id, req.num_computed_tokens - req.num_in_flight_tokens))

    def dirty_ids(self, managers):
        out = defaultdict(list)
        for rid, confirmed in self.seen:
            for m in managers:
                blocks = m.req_to_blocks.get(rid, [])
                out[rid].extend(b.block_id for b in blocks[confirmed // m.block_size :] if not b.is_null)
        return out


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        tr = Tracker()
        for req in sched.running:
            tr.note(req)
        # abort first so the user sees the error as early as possible
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        per_req = tr.dirty_ids(sched.kv_cache_manager.coordinator.single_type_managers)
        ids = set(itertools.chain.from_iterable(per_req.values()))
        print(f"post-abort eviction of {len(ids)} blocks for {len(tr.seen)} requests")
        sched.kv_cache_manager.evict_blocks(ids)
