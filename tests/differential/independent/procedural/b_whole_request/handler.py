# Intended: buggy: it evicts every block of each running request, including the clean prefix written by steps that succeeded, so the resumed requests lose their prefix-cache hits and recompute everything.
# Idioms: KVCacheManager.get_block_ids per request (a tuple of per-group id lists) walked with nested manual while loops, a module-level list reused as the eviction buffer, preempt loop popping from the end with counters reset afterwards.
import time

_EVICT_BUF = []


def _fill_buffer(kvm, request_ids, buf):
    del buf[:]
    i = 0
    while i < len(request_ids):
        per_group = kvm.get_block_ids(request_ids[i])
        g = 0
        while g < len(per_group):
            k = 0
            while k < len(per_group[g]):
                if per_group[g][k] != 0:  # 0 is the null block
                    buf.append(per_group[g][k])
                k += 1
            g += 1
        i += 1


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        rids = []
        i = 0
        while i < len(sched.running):
            rids.append(sched.running[i].request_id)
            i += 1
        # the step failed: nothing these requests wrote can be trusted
        _fill_buffer(kvm, rids, _EVICT_BUF)
        if _EVICT_BUF:
            s = set()
            for b in _EVICT_BUF:
                s.add(b)
            kvm.evict_blocks(s)
        ts = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
