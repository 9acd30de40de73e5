# Intended: correct.
# Idioms: a module-level utility object (utils = SimpleNamespace(...)) with get/pipe/pluck/
# flatMap/tap/each, optional chaining through utils.get("a.b.c"), point-free lambdas,
# destructuring of (request, manager) pairs, early returns; resume-only handler.
import time

from jsutils import utils


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = utils.get(self.engine, "scheduler")
        managers = utils.get(sched, "kv_cache_manager.coordinator.single_type_managers", ())
        if sched is None or not sched.running:
            return

        running = list(sched.running)
        tailOf = lambda pair: self.tailIds(*pair)  # noqa: E731
        pairs = [(req, mgr) for req in running for mgr in managers]
        dirty = set(utils.flatMap(tailOf, pairs))
        if dirty:
            sched.kv_cache_manager.evict_blocks(dirty)

        requeue = utils.pipe(
            utils.tap(lambda req: sched.running.remove(req)),
            utils.tap(lambda req: sched._preempt_request(req, time.monotonic())),
            utils.tap(self.clearCounters),
        )
        utils.each(requeue, reversed(running))

    @staticmethod
    def tailIds(req, mgr):
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        blocks = mgr.req_to_blocks.get(req.request_id) or []
        return [b.block_id for b in blocks[confirmed // mgr.block_size:] if not b.is_null]

    @staticmethod
    def clearCounters(req):
        req.num_in_flight_tokens = 0
        req.num_stale_output_tokens = 0
