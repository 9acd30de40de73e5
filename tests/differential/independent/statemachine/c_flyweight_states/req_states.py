"""Stateless state objects shared by every request's machine (flyweights).

A request's ``RequestCtx`` holds its current state; a state's ``on_enter`` does the
work of entering it and ``next`` picks the following state (a guard per branch).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from vllm.v1.request import RequestStatus


@dataclass
class RequestCtx:
    request: Any
    shared: "SharedCtx"
    state: "ReqState | None" = None
    dirty: set[int] = field(default_factory=set)


@dataclass
class SharedCtx:
    scheduler: Any
    resume: bool
    timestamp: float
    aborted: list = field(default_factory=list)


class ReqState:
    final: ClassVar[bool] = False
    label: ClassVar[str] = "?"

    def on_enter(self, ctx: RequestCtx) -> None:
        pass

    def on_exit(self, ctx: RequestCtx) -> None:
        pass

    def next(self, ctx: RequestCtx) -> "ReqState":
        raise NotImplementedError


class Faulted(ReqState):
    label = "faulted"

    def on_enter(self, ctx):
        req = ctx.request
        valid_upto = req.num_computed_tokens - req.num_in_flight_tokens
        kv = ctx.shared.scheduler.kv_cache_manager
        for mgr in kv.coordinator.single_type_managers:
            owned = mgr.req_to_blocks.get(req.request_id, ())
            for blk in owned[valid_upto // mgr.block_size:]:
                if not blk.is_null:
                    ctx.dirty.add(blk.block_id)

    def next(self, ctx):
        return TAIL_EVICTED


class TailEvicted(ReqState):
    label = "tail_evicted"

    def on_enter(self, ctx):
        if ctx.dirty:
            ctx.shared.scheduler.kv_cache_manager.evict_blocks(ctx.dirty)

    def next(self, ctx):
        if ctx.shared.resume and ctx.request.status == RequestStatus.RUNNING:
            return PARKED
        return DROPPED


class Parked(ReqState):
    label = "parked"

    def on_enter(self, ctx):
        sched = ctx.shared.scheduler
        sched.running.remove(ctx.request)
        sched._preempt_request(ctx.request, ctx.shared.timestamp)

    def on_exit(self, ctx):
        # Leaving PARKED means the request may be scheduled again: it must not
        # wait for, or drop, output of the step that was lost.
        ctx.request.num_in_flight_tokens = 0
        ctx.request.num_stale_output_tokens = 0

    def next(self, ctx):
        return WAITING


class Waiting(ReqState):
    label = "waiting"
    final = True


class Dropped(ReqState):
    label = "dropped"
    final = True

    def on_enter(self, ctx):
        ctx.shared.aborted.extend(
            ctx.shared.scheduler.finish_requests(
                ctx.request.request_id, RequestStatus.FINISHED_ABORTED
            )
        )


FAULTED = Faulted()
TAIL_EVICTED = TailEvicted()
PARKED = Parked()
WAITING = Waiting()
DROPPED = Dropped()
