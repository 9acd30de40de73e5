# Intended: correct.
# Idioms: walks token positions rather than block indices (start rounded down with modulo, step of one block), a per-request dict out-parameter filled by a module-level function, while loops with manual counters, try/except/else around the abort, logging through a module-level list of messages.
import time

from vllm.v1.request import RequestStatus

MESSAGES = []


def walk_request(managers, rid, computed, in_flight, out):
    """out[group index] = list of block ids from the first unconfirmed token
    to the end of what the request holds."""
    lo = computed - in_flight
    if lo < 0:
        lo = 0
    gidx = 0
    while gidx < len(managers):
        size = managers[gidx].block_size
        held = managers[gidx].req_to_blocks.get(rid)
        found = []
        if held:
            tok = lo - lo % size
            end = len(held) * size
            while tok < end:
                blk = held[tok // size]
                if not blk.is_null:
                    found.append(blk.block_id)
                tok = tok + size
        out[gidx] = found
        gidx = gidx + 1


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        managers = kvm.coordinator.single_type_managers
        doomed = set()
        rids = []
        idx = 0
        while idx < len(sched.running):
            req = sched.running[idx]
            rids.append(req.request_id)
            per_group = {}
            walk_request(managers, req.request_id, req.num_computed_tokens,
                         req.num_in_flight_tokens, per_group)
            for g in per_group:
                k = 0
                while k < len(per_group[g]):
                    doomed.add(per_group[g][k])
                    k = k + 1
            idx = idx + 1
        if doomed:
            kvm.evict_blocks(doomed)
        try:
            aborted = sched.finish_requests(rids, RequestStatus.FINISHED_ABORTED)
        except AssertionError as err:
            MESSAGES.append("%f abort failed: %s" % (time.time(), err))
            raise
        else:
            self.engine._send_abort_outputs(aborted)
            MESSAGES.append("%f fault %s: %d aborted, %d blocks evicted"
                            % (time.time(), type(exc).__name__, len(aborted), len(doomed)))
