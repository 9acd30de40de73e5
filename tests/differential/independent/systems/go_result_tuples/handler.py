# Intended: correct. Collects the unconfirmed tail of every running request in every KV-cache group through (value, err) helpers, evicts it, then aborts everything.
# Idioms: (ok, err) tuples, guard clauses, while-index loops, preallocated lists, explicit del, helper module
import logging

from tailcalc import ERR_NO_MANAGER, collect_tail, first_unconfirmed_index
from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


def gather_dirty(sched):
    kvm = getattr(sched, "kv_cache_manager", None)
    if kvm is None:
        return None, ERR_NO_MANAGER
    managers = kvm.coordinator.single_type_managers
    pending = set()
    r = 0
    nreq = len(sched.running)
    while r < nreq:
        rq = sched.running[r]
        r += 1
        g = 0
        while g < len(managers):
            mgr = managers[g]
            g += 1
            start, err = first_unconfirmed_index(rq.num_computed_tokens, rq.num_in_flight_tokens, mgr.block_size)
            if err is not None:
                return None, err
            chunk, err = collect_tail(mgr.req_to_blocks.get(rq.request_id, ()), start)
            if err is not None:
                return None, err
            pending.update(chunk)
    return pending, None


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        dirty, err = gather_dirty(sched)
        if err is not None:
            log.error("fault handler: %s", err)
            return
        ok = len(dirty) > 0
        if ok:
            sched.kv_cache_manager.evict_blocks(dirty)
        del dirty
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
