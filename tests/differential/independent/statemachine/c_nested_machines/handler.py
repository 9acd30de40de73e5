# Intended: correct.
# Idioms: a reusable FSM class (helper module) with on_enter/on_exit callbacks and guarded edges, a nested machine (the outer recovery machine runs an inner per-KV-cache-group eviction machine in one state's enter hook), context dataclasses, a step cap.
# switch: resume_after_fault
"""Hierarchical recovery: outer machine over the engine, inner machine over KV groups."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from fsm_core import FSM, Edge
from vllm.v1.request import RequestStatus


@dataclass
class GroupCtx:
    manager: object
    requests: list
    boundaries: dict[str, int]
    dirty: set[int] = field(default_factory=set)


def _collect_group_tail(g: GroupCtx) -> None:
    for req in g.requests:
        blocks = g.manager.req_to_blocks.get(req.request_id, [])
        first = g.boundaries[req.request_id] // g.manager.block_size
        g.dirty.update(b.block_id for b in blocks[first:] if not b.is_null)


GROUP_MACHINE = FSM(
    name="group-tail",
    initial="scan",
    finals=frozenset({"empty", "collected"}),
    edges={
        "scan": [Edge("empty", lambda g: not g.dirty), Edge("collected")],
    },
    on_enter={"scan": _collect_group_tail},
)


@dataclass
class RecoveryCtx:
    handler: "FaultHandler"
    requests: list = field(default_factory=list)
    boundaries: dict[str, int] = field(default_factory=dict)
    dirty: set[int] = field(default_factory=set)
    aborted: list = field(default_factory=list)

    @property
    def scheduler(self):
        return self.handler.engine.scheduler


def _enter_frozen(ctx: RecoveryCtx) -> None:
    ctx.requests = list(ctx.scheduler.running)
    for req in ctx.requests:
        ctx.boundaries[req.request_id] = max(0, req.num_computed_tokens - req.num_in_flight_tokens)


def _enter_scrubbing(ctx: RecoveryCtx) -> None:
    kv = ctx.scheduler.kv_cache_manager
    for mgr in kv.coordinator.single_type_managers:
        g = GroupCtx(manager=mgr, requests=ctx.requests, boundaries=ctx.boundaries)
        if GROUP_MACHINE.run(g) == "collected":
            ctx.dirty |= g.dirty


def _exit_scrubbing(ctx: RecoveryCtx) -> None:
    if ctx.dirty:
        ctx.scheduler.kv_cache_manager.evict_blocks(ctx.dirty)


def _enter_aborting(ctx: RecoveryCtx) -> None:
    sched = ctx.scheduler
    ctx.aborted = sched.finish_requests(
        [r.request_id for r in ctx.requests], RequestStatus.FINISHED_ABORTED
    )
    ctx.handler.engine._send_abort_outputs(ctx.aborted)


def _enter_parking(ctx: RecoveryCtx) -> None:
    sched = ctx.scheduler
    ts = time.monotonic()
    for req in reversed(ctx.requests):
        sched.running.remove(req)
        sched._preempt_request(req, ts)
        req.num_in_flight_tokens = 0
        req.num_stale_output_tokens = 0


RECOVERY_MACHINE = FSM(
    name="engine-recovery",
    initial="frozen",
    finals=frozenset({"aborted", "parked", "idle"}),
    edges={
        "frozen": [Edge("idle", lambda c: not c.requests), Edge("scrubbing")],
        "scrubbing": [
            Edge("parking", lambda c: c.handler.resume_after_fault),
            Edge("aborting"),
        ],
        "parking": [Edge("parked")],
        "aborting": [Edge("aborted")],
    },
    on_enter={
        "frozen": _enter_frozen,
        "scrubbing": _enter_scrubbing,
        "aborting": _enter_aborting,
        "parking": _enter_parking,
    },
    on_exit={"scrubbing": _exit_scrubbing},
)


class FaultHandler:
    resume_after_fault = False

    def __init__(self, engine):
        self.engine = engine
        self.last_outcome: str | None = None

    def on_fault(self, exc):
        self.last_outcome = RECOVERY_MACHINE.run(RecoveryCtx(handler=self))
        return self.last_outcome
