# Intended: correct.
# Idioms: middleware chain (each middleware receives the context and a next callable), a context dataclass passed down the chain, the terminal step chosen by a switch.
# switch: resume_requests
"""Fault handling as a middleware chain.

Every middleware has the signature ``mw(ctx, call_next)``; the chain is
composed once in ``__init__``.  The tail-eviction middleware runs before the
terminal step (abort or preempt), so the blocks are still held by their
requests when it reads them.
"""

from __future__ import annotations

import functools
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)

Next = Callable[["FaultContext"], None]
Middleware = Callable[["FaultContext", Next], None]


@dataclass
class FaultContext:
    scheduler: Any
    exc: BaseException
    resume: bool
    requests: list = field(default_factory=list)
    dirty_ids: set[int] = field(default_factory=set)
    aborted: list = field(default_factory=list)


def snapshot_running(ctx: FaultContext, call_next: Next) -> None:
    ctx.requests = list(ctx.scheduler.running)
    call_next(ctx)


def log_fault(ctx: FaultContext, call_next: Next) -> None:
    logger.warning("fault %r with %d running requests", ctx.exc, len(ctx.requests))
    call_next(ctx)


def find_unconfirmed_tail(ctx: FaultContext, call_next: Next) -> None:
    coordinator = ctx.scheduler.kv_cache_manager.coordinator
    for req in ctx.requests:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        per_group = coordinator.get_blocks(req.request_id)
        for manager, blocks in zip(coordinator.single_type_managers, per_group):
            start = confirmed // manager.block_size
            for block in blocks[start:]:
                if not block.is_null:
                    ctx.dirty_ids.add(block.block_id)
    call_next(ctx)


def evict_dirty(ctx: FaultContext, call_next: Next) -> None:
    if ctx.dirty_ids:
        ctx.scheduler.kv_cache_manager.evict_blocks(ctx.dirty_ids)
    call_next(ctx)


def retire(ctx: FaultContext, call_next: Next) -> None:
    sched = ctx.scheduler
    if ctx.resume:
        stamp = time.monotonic()
        for req in reversed(ctx.requests):
            sched.running.remove(req)
            sched._preempt_request(req, stamp)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
    else:
        ctx.aborted = sched.finish_requests(
            (r.request_id for r in ctx.requests), RequestStatus.FINISHED_ABORTED
        )
    call_next(ctx)


def _compose(middlewares: list[Middleware]) -> Next:
    def terminal(ctx: FaultContext) -> None:
        return None

    chain: Next = terminal
    for mw in reversed(middlewares):
        chain = functools.partial(mw, call_next=chain)
    return chain


class FaultHandler:
    resume_requests = False

    def __init__(self, engine) -> None:
        self.engine = engine
        self.middlewares: list[Middleware] = [
            snapshot_running,
            log_fault,
            find_unconfirmed_tail,
            evict_dirty,
            retire,
        ]
        self._chain = _compose(self.middlewares)

    def on_fault(self, exc: BaseException) -> None:
        ctx = FaultContext(self.engine.scheduler, exc, self.resume_requests)
        self._chain(ctx)
        if ctx.aborted:
            self.engine._send_abort_outputs(ctx.aborted)
