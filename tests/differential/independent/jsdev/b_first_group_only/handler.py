# Intended: buggy: it takes only the first KV-cache group's block ids (array-destructuring the per-group tuple), so with a second group such as sliding-window attention that group's unconfirmed tail stays in the prefix cache.
# Idioms: array destructuring ([first, *_] = ...), an options dict merged with defaults,
# map/filter lambdas, early returns, getattr optional chaining; abort-only handler.
from vllm.v1.request import RequestStatus

DEFAULTS = {"status": RequestStatus.FINISHED_ABORTED, "notify": True}


class FaultHandler:
    def __init__(self, engine, opts=None):
        self.engine = engine
        self.opts = {**DEFAULTS, **(opts or {})}

    def on_fault(self, exc):
        sched = getattr(self.engine, "scheduler", None)
        running = list(getattr(sched, "running", None) or [])
        if not running:
            return []

        kv = sched.kv_cache_manager
        block_size = kv.coordinator.single_type_managers[0].block_size

        def tailOf(req):
            blockIds, *_rest = kv.get_block_ids(req.request_id)
            start = (req.num_computed_tokens - req.num_in_flight_tokens) // block_size
            return blockIds[start:]

        dirty = {bid for ids in map(tailOf, running) for bid in ids}
        if dirty:
            kv.evict_blocks(dirty)

        aborted = sched.finish_requests(list(map(lambda r: r.request_id, running)), self.opts["status"])
        if self.opts["notify"]:
            getattr(self.engine, "_send_abort_outputs", lambda _a: None)(aborted)
        return aborted
