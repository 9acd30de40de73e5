# Intended: buggy: resume preempts with drop_stale_output=True (and clears only num_in_flight_tokens), so the request is marked to drop a stale frame that never arrives and loses its first good output.
# Idioms: event system: hooks registered in a dict of phase -> list of callbacks, a dispatcher firing phases in order, per-request hooks.
from __future__ import annotations

import time
from typing import Callable

Hook = Callable[["FaultContext"], None]


class FaultContext:
    def __init__(self, engine, exc) -> None:
        self.engine = engine
        self.exc = exc
        self.requests = list(engine.scheduler.running)
        self.timestamp = time.monotonic()


HOOKS: dict[str, list[Hook]] = {"before_preempt": [], "preempt": [], "after_preempt": []}


def hook(phase: str):
    def register(fn: Hook) -> Hook:
        HOOKS[phase].append(fn)
        return fn

    return register


@hook("before_preempt")
def evict_unconfirmed(ctx: FaultContext) -> None:
    kv = ctx.engine.scheduler.kv_cache_manager
    ids: set[int] = set()
    for req in ctx.requests:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kv.coordinator.single_type_managers:
            ids.update(b.block_id for b in mgr.req_to_blocks.get(req.request_id, [])[confirmed // mgr.block_size:])
    if ids:
        kv.evict_blocks(ids)


@hook("preempt")
def preempt_running(ctx: FaultContext) -> None:
    sched = ctx.engine.scheduler
    for req in ctx.requests:
        sched.running.remove(req)
        # the lost step's output is stale: drop it rather than deliver it
        sched._preempt_request(req, ctx.timestamp, drop_stale_output=True)


@hook("after_preempt")
def clear_in_flight(ctx: FaultContext) -> None:
    for req in ctx.requests:
        req.num_in_flight_tokens = 0


class FaultHandler:
    PHASES = ("before_preempt", "preempt", "after_preempt")

    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc) -> None:
        ctx = FaultContext(self.engine, exc)
        for phase in self.PHASES:
            for fn in HOOKS[phase]:
                fn(ctx)
