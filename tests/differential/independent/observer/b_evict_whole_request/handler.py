# Intended: buggy: the eviction middleware evicts every block the request holds instead of only the unconfirmed tail, so the clean prefix written by steps that succeeded is dropped from the prefix cache and must be recomputed on retry.
# Idioms: middleware chain where each middleware calls next(ctx) explicitly (a class with __call__ per middleware), a context dataclass, the chain built in __init__ by folding the list.
# switch: RESUME
"""Middleware-style fault handler; each middleware is a small class."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from vllm.v1.request import RequestStatus


@dataclass
class Ctx:
    engine: Any
    resume: bool
    requests: list = field(default_factory=list)
    evicted: set = field(default_factory=set)


class Middleware:
    def __call__(self, ctx: Ctx, next_):  # pragma: no cover - interface
        raise NotImplementedError


class CollectRunning(Middleware):
    def __call__(self, ctx, next_):
        ctx.requests = list(ctx.engine.scheduler.running)
        return next_(ctx)


class EvictRequestKV(Middleware):
    """The KV written around the failure cannot be trusted: forget the
    request's cached blocks so a retry does not hit them."""

    def __call__(self, ctx, next_):
        kv = ctx.engine.scheduler.kv_cache_manager
        for req in ctx.requests:
            for ids in kv.get_block_ids(req.request_id):
                ctx.evicted.update(ids)
        ctx.evicted.discard(kv.block_pool.null_block.block_id)
        kv.evict_blocks(ctx.evicted)
        return next_(ctx)


class Retire(Middleware):
    def __call__(self, ctx, next_):
        sched = ctx.engine.scheduler
        if ctx.resume:
            ts = time.monotonic()
            while sched.running:
                req = sched.running.pop()
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            aborted = sched.finish_requests(
                [r.request_id for r in ctx.requests], RequestStatus.FINISHED_ABORTED
            )
            ctx.engine._send_abort_outputs(aborted)
        return next_(ctx)


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine
        self.stack = [CollectRunning(), EvictRequestKV(), Retire()]
        run = lambda ctx: None  # noqa: E731 - end of chain
        for mw in reversed(self.stack):
            run = (lambda m, nxt: (lambda ctx: m(ctx, nxt)))(mw, run)
        self._run = run

    def on_fault(self, exc):
        self._run(Ctx(self.engine, self.RESUME))
