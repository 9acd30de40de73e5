# Intended: correct.
# Idioms: Koa-style middleware stack (use(fn) with fn(ctx, next)), a SimpleNamespace ctx
# object, early returns that short-circuit the chain, closures over the scheduler,
# map/filter comprehensions, "await next()" written as next() before/after work; resume-only.
import time
from types import SimpleNamespace

from middleware import Stack


def skipWhenIdle(ctx, next):
    if not ctx.requests:
        return ctx  # nothing running: short-circuit
    return next()


def evictUnconfirmed(ctx, next):
    kv = ctx.scheduler.kv_cache_manager
    ids = set()
    for req in ctx.requests:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(req.request_id) or []
            ids.update(b.block_id for b in blocks[confirmed // mgr.block_size:] if not b.is_null)
    if ids:
        kv.evict_blocks(ids)
    ctx.evicted = ids
    return next()


def requeue(ctx, next):
    sched, stamp = ctx.scheduler, time.monotonic()
    for req in reversed(ctx.requests):
        sched.running.remove(req)
        sched._preempt_request(req, stamp)
    return next()


def forgetLostStep(ctx, next):
    # The failed step's output will never arrive: nothing to wait for, nothing to drop.
    for req in ctx.requests:
        req.num_in_flight_tokens = 0
        req.num_stale_output_tokens = 0
    return next()


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.app = Stack().use(skipWhenIdle).use(evictUnconfirmed).use(requeue).use(forgetLostStep)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        ctx = SimpleNamespace(scheduler=sched, requests=list(sched.running), error=exc, evicted=set())
        return self.app.handle(ctx)
