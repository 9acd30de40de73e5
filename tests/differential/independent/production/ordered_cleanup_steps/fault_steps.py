"""Per-request cleanup steps after a failed engine step, run in ``order``."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Step = Callable[["StepContext", Any], None]
_REGISTRY: list[tuple[int, Step]] = []


@dataclass
class StepContext:
    scheduler: Any
    timestamp: float


def cleanup_step(order: int) -> Callable[[Step], Step]:
    def register(fn: Step) -> Step:
        _REGISTRY.append((order, fn))
        return fn

    return register


def ordered() -> list[Step]:
    return [fn for _, fn in sorted(_REGISTRY, key=lambda item: item[0])]


@cleanup_step(order=30)
def clear_lost_step(ctx: StepContext, request: Any) -> None:
    request.num_in_flight_tokens = 0
    request.num_stale_output_tokens = 0


@cleanup_step(order=20)
def requeue(ctx: StepContext, request: Any) -> None:
    ctx.scheduler.running.remove(request)
    ctx.scheduler._preempt_request(request, ctx.timestamp)


@cleanup_step(order=10)
def evict_unconfirmed_tail(ctx: StepContext, request: Any) -> None:
    kv = ctx.scheduler.kv_cache_manager
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    ids = {
        block.block_id
        for group in kv.coordinator.single_type_managers
        for block in group.req_to_blocks.get(request.request_id, [])[confirmed // group.block_size :]
        if not block.is_null
    }
    if ids:
        kv.evict_blocks(ids)
