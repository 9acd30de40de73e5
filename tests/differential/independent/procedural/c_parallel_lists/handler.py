# Intended: correct.
# Idioms: parallel lists (requests, confirmed token counts, first dirty index per group) indexed with one manual counter, a while/else that logs when the scan completes, a module-level function with many positional arguments doing the eviction, an abort/resume switch.
# switch: DO_RESUME
import logging
import time

from vllm.v1.request import RequestStatus

logger = logging.getLogger("fault")


def evict_from_index(kvm, mgr, rid, first_index, skip_null, out_ids):
    blocks = mgr.req_to_blocks.get(rid)
    if blocks is None:
        return 0
    n = 0
    i = first_index
    while i < len(blocks):
        b = blocks[i]
        i = i + 1
        if skip_null and b.is_null:
            continue
        out_ids.add(b.block_id)
        n = n + 1
    return n


class FaultHandler:
    DO_RESUME = True

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        mgrs = kvm.coordinator.single_type_managers

        reqs = []
        good = []
        firsts = []
        i = 0
        while i < len(sched.running):
            r = sched.running[i]
            reqs.append(r)
            c = r.num_computed_tokens - r.num_in_flight_tokens
            good.append(c)
            row = []
            g = 0
            while g < len(mgrs):
                row.append(c // mgrs[g].block_size)
                g = g + 1
            firsts.append(row)
            i = i + 1
        else:
            logger.debug("scanned %d running requests", len(reqs))

        ids = set()
        i = 0
        while i < len(reqs):
            g = 0
            while g < len(mgrs):
                evict_from_index(kvm, mgrs[g], reqs[i].request_id, firsts[i][g], True, ids)
                g = g + 1
            i = i + 1
        if len(ids) > 0:
            kvm.evict_blocks(ids)

        if self.DO_RESUME:
            t = time.monotonic()
            i = len(reqs) - 1
            while i >= 0:
                r = reqs[i]
                sched.running.remove(r)
                sched._preempt_request(r, t, False)
                r.num_in_flight_tokens = 0
                r.num_stale_output_tokens = 0
                i = i - 1
        else:
            names = []
            i = 0
            while i < len(reqs):
                names.append(reqs[i].request_id)
                i = i + 1
            out = sched.finish_requests(names, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(out)
