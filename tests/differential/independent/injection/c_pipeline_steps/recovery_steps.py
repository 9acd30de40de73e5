"""Composable recovery steps over a shared context."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from vllm.v1.request import RequestStatus


@dataclass
class FaultContext:
    engine: Any
    error: BaseException
    resume: bool
    requests: list[Any] = field(default_factory=list)
    dirty_ids: set[int] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)

    @property
    def scheduler(self) -> Any:
        return self.engine.scheduler


class Step(Protocol):
    def __call__(self, ctx: FaultContext) -> None: ...


def snapshot_running(ctx: FaultContext) -> None:
    ctx.requests = list(ctx.scheduler.running)


class CollectUnconfirmedTail:
    def __call__(self, ctx: FaultContext) -> None:
        coordinator = ctx.scheduler.kv_cache_manager.coordinator
        for req in ctx.requests:
            good = max(0, req.num_computed_tokens - req.num_in_flight_tokens)
            for per_group in coordinator.single_type_managers:
                owned = per_group.req_to_blocks.get(req.request_id) or []
                ctx.dirty_ids.update(
                    b.block_id for b in owned[good // per_group.block_size :] if not b.is_null
                )


def evict_collected(ctx: FaultContext) -> None:
    if ctx.dirty_ids:
        ctx.scheduler.kv_cache_manager.evict_blocks(ctx.dirty_ids)
    ctx.notes.append(f"evicted {len(ctx.dirty_ids)}")


class Release:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock

    def __call__(self, ctx: FaultContext) -> None:
        sched = ctx.scheduler
        if not ctx.resume:
            ctx.engine._send_abort_outputs(
                sched.finish_requests([r.request_id for r in ctx.requests], RequestStatus.FINISHED_ABORTED)
            )
            return
        when = self.clock()
        for req in reversed(ctx.requests):
            sched.running.remove(req)
            sched._preempt_request(req, when)


def clear_lost_step_counters(ctx: FaultContext) -> None:
    if not ctx.resume:
        return
    for req in ctx.requests:
        req.num_in_flight_tokens = 0
        req.num_stale_output_tokens = 0


DEFAULT_PIPELINE: tuple[Step, ...] = (
    snapshot_running,
    CollectUnconfirmedTail(),
    evict_collected,
    Release(),
    clear_lost_step_counters,
)
