# Intended: correct.
# Idioms: itertools.starmap over itertools.product(requests, groups) with a slicing lambda, functools.partial binding the timestamp, resume only (no abort path).
import time
from functools import partial
from itertools import product, starmap


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s = self.engine.scheduler
        kv = s.kv_cache_manager
        cut = lambda r, m: m.req_to_blocks.get(r.request_id, ())[(r.num_computed_tokens - r.num_in_flight_tokens) // m.block_size:]  # noqa: E731
        kv.evict_blocks({b.block_id for bl in starmap(cut, product(s.running, kv.coordinator.single_type_managers))
                         for b in bl if not b.is_null})
        requeue = partial(s._preempt_request, timestamp=time.monotonic())
        for r in reversed(s.running):
            requeue(r)
            r.num_in_flight_tokens = r.num_stale_output_tokens = 0
        s.running.clear()
