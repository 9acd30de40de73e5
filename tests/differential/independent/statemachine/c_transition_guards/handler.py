# Intended: correct.
# Idioms: transition list of (source, guard, target, action) rows, first row whose guard holds fires, Enum states with auto(), a context object holding the plan, a step budget that raises when exceeded.
# switch: keep_requests
"""Guarded-transition recovery machine for an engine-core fault."""

from __future__ import annotations

import time
from enum import Enum, auto
from typing import Callable, NamedTuple

from vllm.v1.request import RequestStatus


class S(Enum):
    IDLE = auto()
    PLANNED = auto()
    CLEANED = auto()
    REQUEUED = auto()
    FINISHED = auto()


class Transition(NamedTuple):
    source: S
    guard: Callable[["Ctx"], bool]
    target: S
    action: Callable[["Ctx"], None]


class Ctx:
    def __init__(self, scheduler, engine, keep: bool):
        self.scheduler = scheduler
        self.engine = engine
        self.keep = keep
        self.requests: list = []
        self.dirty_ids: set[int] = set()
        self.aborted: list = []


def _always(ctx: Ctx) -> bool:
    return True


def _nothing_running(ctx: Ctx) -> bool:
    return not ctx.requests


def _has_dirty(ctx: Ctx) -> bool:
    return bool(ctx.dirty_ids)


def _resume(ctx: Ctx) -> bool:
    return ctx.keep


def _abort_wanted(ctx: Ctx) -> bool:
    return not ctx.keep


def _noop(ctx: Ctx) -> None:
    return None


def plan(ctx: Ctx) -> None:
    ctx.requests = list(ctx.scheduler.running)
    managers = ctx.scheduler.kv_cache_manager.coordinator.single_type_managers
    for req in ctx.requests:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in managers:
            blocks = mgr.req_to_blocks.get(req.request_id, [])
            tail = blocks[confirmed // mgr.block_size:]
            ctx.dirty_ids.update(b.block_id for b in tail if not b.is_null)


def evict(ctx: Ctx) -> None:
    ctx.scheduler.kv_cache_manager.evict_blocks(ctx.dirty_ids)


def abort(ctx: Ctx) -> None:
    ids = [r.request_id for r in ctx.requests]
    ctx.aborted = ctx.scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED)
    ctx.engine._send_abort_outputs(ctx.aborted)


def requeue(ctx: Ctx) -> None:
    sched = ctx.scheduler
    ts = time.monotonic()
    while sched.running:
        req = sched.running.pop()
        sched._preempt_request(req, ts)
        req.num_in_flight_tokens = 0
        req.num_stale_output_tokens = 0


TRANSITIONS: tuple[Transition, ...] = (
    Transition(S.IDLE, _always, S.PLANNED, plan),
    Transition(S.PLANNED, _nothing_running, S.FINISHED, _noop),
    Transition(S.PLANNED, _has_dirty, S.CLEANED, evict),
    Transition(S.PLANNED, _always, S.CLEANED, _noop),
    Transition(S.CLEANED, _resume, S.REQUEUED, requeue),
    Transition(S.CLEANED, _abort_wanted, S.FINISHED, abort),
    Transition(S.REQUEUED, _always, S.FINISHED, _noop),
)


class FaultHandler:
    keep_requests = False
    budget = 20

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        ctx = Ctx(self.engine.scheduler, self.engine, self.keep_requests)
        state = S.IDLE
        for _ in range(self.budget):
            if state is S.FINISHED:
                return ctx
            for t in TRANSITIONS:
                if t.source is state and t.guard(ctx):
                    t.action(ctx)
                    state = t.target
                    break
            else:
                raise RuntimeError(f"no transition out of {state.name}")
        raise RuntimeError("fault recovery exceeded its step budget") from exc
