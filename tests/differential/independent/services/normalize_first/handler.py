# Intended: buggy: the in-flight counters are cleared in a normalisation stage that runs before the tail is computed, so the boundary becomes num_computed_tokens and the failed step's block stays cached.
# Idioms: pipeline of stage functions applied in order (functools.reduce over stages), shared context dataclass, resume-only.
"""Resume handler written as a small pipeline of recovery stages."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import reduce
from typing import Any


@dataclass
class RecoveryContext:
    scheduler: Any
    requests: list = field(default_factory=list)
    evicted: set = field(default_factory=set)


def collect(ctx: RecoveryContext) -> RecoveryContext:
    ctx.requests = list(ctx.scheduler.running)
    ctx.scheduler.running = []
    return ctx


def normalize_counters(ctx: RecoveryContext) -> RecoveryContext:
    # Clearing in-flight before the preempt leaves no stale output to wait for.
    for req in ctx.requests:
        req.num_in_flight_tokens = 0
        req.num_stale_output_tokens = 0
    return ctx


def evict_unconfirmed(ctx: RecoveryContext) -> RecoveryContext:
    kv = ctx.scheduler.kv_cache_manager
    for req in ctx.requests:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            ctx.evicted.update(b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size :])
    kv.evict_blocks(ctx.evicted)
    return ctx


def requeue(ctx: RecoveryContext) -> RecoveryContext:
    ts = time.monotonic()
    for req in reversed(ctx.requests):
        ctx.scheduler._preempt_request(req, ts)
    return ctx


STAGES = (collect, normalize_counters, evict_unconfirmed, requeue)


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        reduce(lambda ctx, stage: stage(ctx), STAGES, RecoveryContext(self.engine.scheduler))
