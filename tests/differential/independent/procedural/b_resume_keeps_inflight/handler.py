# Intended: buggy: on the resume path it clears the stale-output count after the preempt but leaves num_in_flight_tokens at the lost step's value, so the requeued request's confirmed boundary is off by the lost step.
# Idioms: a module-level dict of counters reused across calls, module-level functions with positional arguments, a for/else over the running list, while loops with manual counters, an abort/resume switch.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus

_COUNTERS = {"faults": 0, "blocks": 0}


def evict_tails(kvm, mgrs, reqs, counters):
    ids = set()
    i = 0
    while i < len(reqs):
        req = reqs[i]
        ok = req.num_computed_tokens - req.num_in_flight_tokens
        g = 0
        while g < len(mgrs):
            bl = mgrs[g].req_to_blocks.get(req.request_id, [])
            p = ok // mgrs[g].block_size
            while p < len(bl):
                if not bl[p].is_null:
                    ids.add(bl[p].block_id)
                p += 1
            g += 1
        i += 1
    if ids:
        kvm.evict_blocks(ids)
    counters["blocks"] += len(ids)


def requeue(sched, reqs, ts):
    i = len(reqs) - 1
    while i >= 0:
        req = reqs[i]
        sched.running.remove(req)
        sched._preempt_request(req, ts)
        # the failed step's output is never coming back
        req.num_stale_output_tokens = 0
        i -= 1


class FaultHandler:
    RESUME = True

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kvm = sched.kv_cache_manager
        _COUNTERS["faults"] += 1
        reqs = []
        for r in sched.running:
            reqs.append(r)
        else:
            if not reqs:
                return
        evict_tails(kvm, kvm.coordinator.single_type_managers, reqs, _COUNTERS)
        if self.RESUME:
            requeue(sched, reqs, time.monotonic())
        else:
            rids = []
            for r in reqs:
                rids.append(r.request_id)
            self.engine._send_abort_outputs(
                sched.finish_requests(rids, RequestStatus.FINISHED_ABORTED))
