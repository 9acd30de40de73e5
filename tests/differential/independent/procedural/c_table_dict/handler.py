# Intended: correct.
# Idioms: a dict table keyed by request id holding [confirmed, ids-per-group] lists, two passes with manual index counters, counters cleared before the preempt (the preempt copies the zero in-flight count into the stale count), an abort/resume switch.
# switch: resume
import time

from vllm.v1.request import RequestStatus


def build_table(scheduler, table, order):
    """Fill table (dict) and order (list of request ids) from the running
    requests.  table[rid] = [confirmed_tokens, [ids group 0], [ids group 1], ...]"""
    mgrs = scheduler.kv_cache_manager.coordinator.single_type_managers
    i = 0
    while i < len(scheduler.running):
        req = scheduler.running[i]
        rid = req.request_id
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        row = [confirmed]
        g = 0
        while g < len(mgrs):
            ids = []
            blocks = mgrs[g].req_to_blocks.get(rid, [])
            n = confirmed // mgrs[g].block_size
            while n < len(blocks):
                if blocks[n].is_null is False:
                    ids.append(blocks[n].block_id)
                n += 1
            row.append(ids)
            g += 1
        table[rid] = row
        order.append(rid)
        i += 1


def evict_table(kv_cache_manager, table, order):
    everything = set()
    i = 0
    while i < len(order):
        row = table[order[i]]
        g = 1
        while g < len(row):
            j = 0
            while j < len(row[g]):
                everything.add(row[g][j])
                j += 1
            g += 1
        i += 1
    if len(everything) == 0:
        return 0
    kv_cache_manager.evict_blocks(everything)
    return len(everything)


class FaultHandler:
    resume = True

    def __init__(self, engine):
        self.engine = engine
        self.table = {}

    def on_fault(self, exc):
        sched = self.engine.scheduler
        self.table = {}
        order = []
        build_table(sched, self.table, order)
        evict_table(sched.kv_cache_manager, self.table, order)

        if not self.resume:
            aborted = sched.finish_requests(order, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return

        when = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            # zero first: _preempt_request copies num_in_flight_tokens into
            # num_stale_output_tokens, so both end up 0
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
            sched._preempt_request(req, when)
