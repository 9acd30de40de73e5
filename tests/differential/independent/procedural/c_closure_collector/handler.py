# Intended: correct.
# Idioms: a factory function returning nested closures (collect / flush) that share a list and a counter dict, manual while loops over the groups and blocks, integer division and modulo written out, abort of every request afterwards.
import logging

from vllm.v1.request import RequestStatus

_log = logging.getLogger("ft.closure")


def make_tail_collector(scheduler):
    kvm = scheduler.kv_cache_manager
    managers = kvm.coordinator.single_type_managers
    pending = []
    counters = {"requests": 0, "blocks": 0}

    def collect(request):
        counters["requests"] = counters["requests"] + 1
        computed = request.num_computed_tokens
        inflight = request.num_in_flight_tokens
        if inflight > computed:
            inflight = computed
        boundary = computed - inflight
        m = 0
        while m < len(managers):
            bsz = managers[m].block_size
            owned = managers[m].req_to_blocks.get(request.request_id)
            m = m + 1
            if not owned:
                continue
            # index of the block the boundary token falls in
            b = (boundary - (boundary % bsz)) // bsz
            while b < len(owned):
                block = owned[b]
                b = b + 1
                if block.is_null:
                    continue
                pending.append(block.block_id)

    def flush():
        if not pending:
            return 0
        ids = set()
        for bid in pending:
            ids.add(bid)
        kvm.evict_blocks(ids)
        counters["blocks"] = counters["blocks"] + len(ids)
        del pending[:]
        return len(ids)

    return collect, flush, counters


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        collect, flush, counters = make_tail_collector(sched)
        i = 0
        while i < len(sched.running):
            collect(sched.running[i])
            i = i + 1
        flush()
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        _log.warning("fault %s: %d requests, %d tail blocks evicted, %d aborted",
                     exc, counters["requests"], counters["blocks"], len(aborted))
