# Intended: correct.
# Idioms: Node-style event emitter (on/once/emit) in a helper module, listeners registered as
# lambdas in order, a context dict passed to every listener, early returns, getattr-based
# optional chaining, map/filter over the running list.
import logging

from vllm.v1.request import RequestStatus

from emitter import EventEmitter

log = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.events = EventEmitter()
        # Order matters: listeners fire in registration order, so the dirty tail is
        # dropped from the prefix cache while the requests still hold their blocks.
        (
            self.events
            .on("fault", lambda ctx: self.evictUnconfirmedTails(ctx))
            .on("fault", lambda ctx: self.abortAll(ctx))
            .on("aborted", lambda ctx: log.warning("[FT] aborted %d request(s) after %r", len(ctx["aborted"]), ctx["exc"]))
        )

    def on_fault(self, exc):
        scheduler = getattr(self.engine, "scheduler", None)
        if scheduler is None:
            return
        ctx = {"exc": exc, "scheduler": scheduler, "requests": list(scheduler.running), "aborted": []}
        self.events.emit("fault", ctx)
        self.events.emit("aborted", ctx)

    def evictUnconfirmedTails(self, ctx):
        kv = ctx["scheduler"].kv_cache_manager
        managers = getattr(getattr(kv, "coordinator", None), "single_type_managers", None) or ()
        if not managers or not ctx["requests"]:
            return

        def tailIdsOf(req):
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            ids = []
            for mgr in managers:
                blocks = mgr.req_to_blocks.get(req.request_id) or []
                first = max(confirmed, 0) // mgr.block_size
                ids += [b.block_id for b in blocks[first:] if not b.is_null]
            return ids

        dirty = {bid for ids in map(tailIdsOf, ctx["requests"]) for bid in ids}
        if dirty:
            kv.evict_blocks(dirty)

    def abortAll(self, ctx):
        ids = [r.request_id for r in ctx["requests"]]
        if not ids:
            return
        ctx["aborted"] = ctx["scheduler"].finish_requests(ids, RequestStatus.FINISHED_ABORTED)
        send = getattr(self.engine, "_send_abort_outputs", None)
        send and send(ctx["aborted"])
