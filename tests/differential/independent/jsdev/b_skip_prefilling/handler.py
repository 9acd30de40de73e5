# Intended: buggy: it only evicts for requests that already produced an output token, on the theory that a request still in prefill has nothing worth keeping, so the dirty prompt blocks cached by a failed prefill step are never evicted.
# Idioms: array-method chains emulated with filter/map/reduce, arrow-style lambdas, a
# module-level utils object (SimpleNamespace), tuple destructuring in lambdas, early returns;
# resume-only handler.
import time
from functools import reduce
from types import SimpleNamespace

utils = SimpleNamespace(
    hasOutput=lambda req: req.num_output_tokens > 0,
    confirmedOf=lambda req: req.num_computed_tokens - req.num_in_flight_tokens,
    union=lambda sets: reduce(lambda acc, s: acc | s, sets, set()),
)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        running = list(sched.running)
        if not running:
            return
        kv = sched.kv_cache_manager
        managers = kv.coordinator.single_type_managers

        tailIds = lambda req: utils.union(  # noqa: E731
            {b.block_id for b in mgr.req_to_blocks.get(req.request_id, [])[utils.confirmedOf(req) // mgr.block_size:] if not b.is_null}
            for mgr in managers
        )
        # Requests still prefilling have no output yet: they just recompute from scratch.
        dirty = utils.union(map(tailIds, filter(utils.hasOutput, running)))
        if dirty:
            kv.evict_blocks(dirty)

        stamp = time.monotonic()
        for req in reversed(running):
            sched.running.remove(req)
            sched._preempt_request(req, stamp)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
