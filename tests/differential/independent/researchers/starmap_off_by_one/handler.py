# Intended: buggy: the first evicted block is confirmed // block_size + 1, one past the first dirty block, so the block holding the confirmed boundary keeps its hash; then aborts.
# Idioms: itertools.starmap over (manager, request) tuples, functools.reduce union, lambda helpers, kwargs config
import functools
import itertools

from vllm.v1.request import RequestStatus

CFG = {"evict": True, "skip_partial": True}


def tail_ids(mgr, req, skip_partial=True):
    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
    start = confirmed // mgr.block_size
    if skip_partial:
        start += 1  # "the block with the boundary was partly confirmed, keep it"
    blocks = mgr.req_to_blocks.get(req.request_id, [])
    return {b.block_id for b in blocks[start:] if not b.is_null}


class FaultHandler:
    def __init__(self, engine, cfg=None):
        self.engine = engine
        self.cfg = {**CFG, **(cfg or {})}

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        mgrs = kv.coordinator.single_type_managers
        if self.cfg.get("evict", True):
            pairs = list(itertools.product(mgrs, list(sched.running)))
            sets = itertools.starmap(lambda m, r: tail_ids(m, r, self.cfg.get("skip_partial", True)), pairs)
            ids = functools.reduce(set.union, sets, set())
            print(f"evict {len(ids)} over {len(pairs)} pairs")
            kv.evict_blocks(ids)
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
