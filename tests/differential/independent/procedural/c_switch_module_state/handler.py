# Intended: correct.
# Idioms: module-level mutable scratch lists and a stats dict reused across calls (emptied with del x[:]), module-level functions with positional arguments, while loops with manual counters, a for/else over the groups, an abort/resume switch as a class attribute.
# switch: RESUME_AFTER_FAULT
import time

from vllm.v1.request import RequestStatus

# scratch space shared by every call (the handler is not re-entrant)
_TAIL = []
_RIDS = []
_REQS = []
_STATS = {"faults": 0, "evicted": 0, "resumed": 0, "aborted": 0}


def _reset_scratch():
    del _TAIL[:]
    del _RIDS[:]
    del _REQS[:]


def _scan_request(req, managers, ngroups):
    rid = req.request_id
    good = req.num_computed_tokens - req.num_in_flight_tokens
    if good < 0:
        good = 0
    g = 0
    for mgr in managers:
        if g >= ngroups:
            break
        blocks = mgr.req_to_blocks.get(rid)
        if blocks:
            pos = good // mgr.block_size
            while pos < len(blocks):
                if not blocks[pos].is_null:
                    _TAIL.append(blocks[pos].block_id)
                pos += 1
        g += 1
    else:
        return True
    return False


def _flush_tail(kv_manager):
    if len(_TAIL) == 0:
        return 0
    ids = set()
    i = 0
    while i < len(_TAIL):
        ids.add(_TAIL[i])
        i += 1
    kv_manager.evict_blocks(ids)
    return len(ids)


class FaultHandler:
    RESUME_AFTER_FAULT = True

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        mgrs = kvm.coordinator.single_type_managers
        _reset_scratch()
        _STATS["faults"] += 1

        i = 0
        while i < len(sched.running):
            req = sched.running[i]
            _REQS.append(req)
            _RIDS.append(req.request_id)
            _scan_request(req, mgrs, len(mgrs))
            i += 1

        _STATS["evicted"] += _flush_tail(kvm)

        if self.RESUME_AFTER_FAULT:
            now = time.monotonic()
            i = len(_REQS) - 1
            while i >= 0:
                req = _REQS[i]
                sched.running.remove(req)
                sched._preempt_request(req, now)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
                _STATS["resumed"] += 1
                i -= 1
        else:
            done = sched.finish_requests(_RIDS, RequestStatus.FINISHED_ABORTED)
            _STATS["aborted"] += len(done)
            self.engine._send_abort_outputs(done)
        _reset_scratch()
