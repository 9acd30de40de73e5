# Intended: buggy: evicting the unconfirmed tail is an opt-in read from an environment variable that defaults to off, so with default settings the handler aborts the requests without evicting anything and the dirty blocks stay in the prefix cache.
# Idioms: module-level configuration flags read from os.environ at import, an early-out branch on the flag, a module-level function with positional arguments filling a set passed in, while loops with manual counters, abort with finish_requests.
import os

from vllm.v1.request import RequestStatus

EVICT_DIRTY_TAIL = os.environ.get("FT_EVICT_DIRTY_TAIL", "0") == "1"
VERBOSE = os.environ.get("FT_VERBOSE", "") != ""


def collect_tail(mgrs, ngroups, rid, confirmed, into):
    g = 0
    while g < ngroups:
        blocks = mgrs[g].req_to_blocks.get(rid)
        if blocks is not None:
            n = confirmed // mgrs[g].block_size
            while n < len(blocks):
                if not blocks[n].is_null:
                    into.add(blocks[n].block_id)
                n = n + 1
        g = g + 1


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        mgrs = kvm.coordinator.single_type_managers
        rids = []
        tail = set()
        i = 0
        while i < len(sched.running):
            r = sched.running[i]
            rids.append(r.request_id)
            if EVICT_DIRTY_TAIL:
                collect_tail(mgrs, len(mgrs), r.request_id,
                             r.num_computed_tokens - r.num_in_flight_tokens, tail)
            i = i + 1
        if len(tail) > 0:
            kvm.evict_blocks(tail)
        if VERBOSE:
            print("fault", exc, "evicting", len(tail), "aborting", len(rids))
        aborted = sched.finish_requests(rids, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
