# Intended: buggy: evicts the tail and clears num_stale_output_tokens after preempting, but leaves num_in_flight_tokens set, so the resumed request's confirmed boundary is off by the lost step.
# Idioms: helper taking many positional parameters, module constants, preallocated list, reversed(), explicit del
import time

NO_TOKENS = 0


def tail_ids(rows, rid, computed, in_flight, block_size, out):
    row = rows.get(rid, ())
    start = (computed - in_flight) // block_size
    k = start
    while k < len(row):
        if not row[k].is_null:
            out.append(row[k].block_id)
        k += 1


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        batch = list(sched.running)
        acc = []
        for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
            for item in batch:
                tail_ids(mgr.req_to_blocks, item.request_id, item.num_computed_tokens, item.num_in_flight_tokens, mgr.block_size, acc)
        if acc:
            sched.kv_cache_manager.evict_blocks(set(acc))
        del acc
        when = time.monotonic()
        for item in reversed(batch):
            sched.running.remove(item)
            sched._preempt_request(item, when)
            item.num_stale_output_tokens = NO_TOKENS
