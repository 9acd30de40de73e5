# Intended: buggy: the promise chain aborts first and evicts in a later then(), but finish_requests has already freed the requests and popped their block lists, so the eviction finds no blocks and every dirty tail stays cached.
# Idioms: a thenable chain (Chain(value).then(...).then(...).catch(...)), arrow lambdas,
# a context dict threaded through with {**ctx, ...}, optional chaining via getattr,
# abort-only handler.
import logging

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class Chain:
    def __init__(self, value, error=None):
        self.value, self.error = value, error

    def then(self, fn):
        if self.error is not None:
            return self
        try:
            return Chain(fn(self.value))
        except Exception as err:  # noqa: BLE001 - carried to catch()
            return Chain(None, err)

    def catch(self, fn):
        if self.error is None:
            return self
        fn(self.error)
        raise self.error


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        return (
            Chain({"sched": sched, "kv": sched.kv_cache_manager, "reqs": list(sched.running)})
            .then(self.abort)
            .then(self.notify)
            .then(self.evictTail)
            .catch(lambda err: log.error("[FT] recovery failed: %r", err))
            .value
        )

    def abort(self, ctx):
        ids = [r.request_id for r in ctx["reqs"]]
        aborted = ctx["sched"].finish_requests(ids, RequestStatus.FINISHED_ABORTED) if ids else []
        return {**ctx, "aborted": aborted}

    def notify(self, ctx):
        send = getattr(self.engine, "_send_abort_outputs", None)
        send and ctx["aborted"] and send(ctx["aborted"])
        return ctx

    def evictTail(self, ctx):
        kv = ctx["kv"]
        ids = set()
        for req in ctx["reqs"]:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks.get(req.request_id) or []
                ids |= {b.block_id for b in blocks[confirmed // mgr.block_size:] if not b.is_null}
        ids and kv.evict_blocks(ids)
        return {**ctx, "evicted": ids}
