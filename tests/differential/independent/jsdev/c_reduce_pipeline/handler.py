# Intended: correct.
# Idioms: reduce() over a list of pure step functions, each returning a new context via
# {**ctx, key: value} spreads (immutable-state style), map/filter/any for array methods,
# tuple destructuring, an arrow-lambda compose; abort-only handler.
from functools import reduce

from vllm.v1.request import RequestStatus


def collect(ctx):
    sched = ctx["scheduler"]
    return {**ctx, "requests": tuple(sched.running), "kv": sched.kv_cache_manager}


def computeTail(ctx):
    kv = ctx["kv"]
    groups = tuple(enumerate(kv.coordinator.single_type_managers))

    def tailOf(req):
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        return [
            (gid, blk.block_id)
            for gid, mgr in groups
            for idx, blk in enumerate(mgr.req_to_blocks.get(req.request_id, ()))
            if idx * mgr.block_size + mgr.block_size > confirmed and not blk.is_null
        ]

    tail = [pair for req in ctx["requests"] for pair in tailOf(req)]
    return {**ctx, "tail": tail}


def evict(ctx):
    ids = set(map(lambda pair: pair[1], ctx["tail"]))
    if ids:
        ctx["kv"].evict_blocks(ids)
    return {**ctx, "evicted": ids}


def abort(ctx):
    ids = list(map(lambda r: r.request_id, ctx["requests"]))
    aborted = ctx["scheduler"].finish_requests(ids, RequestStatus.FINISHED_ABORTED) if ids else []
    return {**ctx, "aborted": aborted}


PIPELINE = (collect, computeTail, evict, abort)
run = lambda ctx, steps=PIPELINE: reduce(lambda acc, step: step(acc), steps, ctx)  # noqa: E731


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        result = run({"scheduler": self.engine.scheduler, "exc": exc})
        aborted = result["aborted"]
        if any(aborted) and hasattr(self.engine, "_send_abort_outputs"):
            self.engine._send_abort_outputs(aborted)
        return result
