# Intended: buggy: it takes the block ids of the first KV-cache group only, so with a hybrid model (full plus sliding-window attention) the dirty tail blocks of the second group keep their hashes in the prefix cache.
# Idioms: KVCacheManager.get_block_ids(...)[0] with the scheduler's block_size, block index computed inline with //, while loops with manual counters, an out-parameter list filled by a module-level function, an abort/resume switch.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus


def tail_ids(kvm, block_size, rid, computed, in_flight, out):
    ids = kvm.get_block_ids(rid)[0]
    start = (computed - in_flight) // block_size
    if start < 0:
        start = 0
    while start < len(ids):
        if ids[start] != 0:
            out.append(ids[start])
        start = start + 1


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        out = []
        reqs = []
        i = 0
        while i < len(sched.running):
            r = sched.running[i]
            reqs.append(r)
            tail_ids(kvm, sched.block_size, r.request_id, r.num_computed_tokens,
                     r.num_in_flight_tokens, out)
            i = i + 1
        if out:
            ids = set()
            i = 0
            while i < len(out):
                ids.add(out[i])
                i = i + 1
            kvm.evict_blocks(ids)
        if self.RESUME:
            now = time.monotonic()
            i = len(reqs) - 1
            while i >= 0:
                sched.running.remove(reqs[i])
                sched._preempt_request(reqs[i], now)
                reqs[i].num_in_flight_tokens = 0
                reqs[i].num_stale_output_tokens = 0
                i = i - 1
            return
        names = []
        for r in reqs:
            names.append(r.request_id)
        aborted = sched.finish_requests(names, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
