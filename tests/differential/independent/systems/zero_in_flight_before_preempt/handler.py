# Intended: correct. Records each request's confirmed boundary, evicts the tail above it in every KV-cache group, then zeroes num_in_flight_tokens before the preempt so the preempt copies zero into the stale counter.
# Idioms: functions returning tuples unpacked by the caller, enumerate, preallocated parallel lists, explicit del, early return on empty batch
import time

Boundary = int


def snapshot(batch):
    n = len(batch)
    names = [""] * n
    bounds: list[Boundary] = [0] * n
    for i, it in enumerate(batch):
        names[i] = it.request_id
        bounds[i] = it.num_computed_tokens - it.num_in_flight_tokens
    return names, bounds, n


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sch = self.engine.scheduler
        batch = list(sch.running)
        if not batch:
            return
        names, bounds, n = snapshot(batch)
        cache = sch.kv_cache_manager
        bad = set()
        for grp in cache.coordinator.single_type_managers:
            for i in range(n):
                row = grp.req_to_blocks.get(names[i], ())
                cut = bounds[i] // grp.block_size
                for pos in range(cut, len(row)):
                    if not row[pos].is_null:
                        bad.add(row[pos].block_id)
        del names, bounds
        if bad:
            cache.evict_blocks(bad)
        ts = time.monotonic()
        for it in reversed(batch):
            sch.running.remove(it)
            it.num_in_flight_tokens = 0
            sch._preempt_request(it, ts)
