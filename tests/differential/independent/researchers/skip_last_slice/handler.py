# Intended: buggy: the batch slice running[:-1] drops the last running request, so its unconfirmed tail is never evicted before the abort.
# Idioms: slicing with computed offsets, zip of parallel lists, itertools.accumulate running totals, print progress
import itertools

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        mgrs = kv.coordinator.single_type_managers
        batch = sched.running[: len(sched.running) - 1]  # "last one is the probe"
        rids = [r.request_id for r in batch]
        confirmed = [r.num_computed_tokens - r.num_in_flight_tokens for r in batch]
        counts, ids = [], set()
        for rid, ok in zip(rids, confirmed):
            n = 0
            for m in mgrs:
                chunk = [b.block_id for b in m.req_to_blocks.get(rid, [])[ok // m.block_size :] if not b.is_null]
                ids.update(chunk)
                n += len(chunk)
            counts.append(n)
        print(f"cumulative evictions: {list(itertools.accumulate(counts))}")
        kv.evict_blocks(ids)
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
