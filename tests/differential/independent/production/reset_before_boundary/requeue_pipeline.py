"""Per-request stages that put a faulted request back in the waiting queue."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass
class RequeueContext:
    scheduler: Any
    kv: Any
    timestamp: float
    evicted: int = 0


class Stage(Protocol):
    def __call__(self, ctx: RequeueContext, request: Any) -> None: ...


def forget_lost_step(ctx: RequeueContext, request: Any) -> None:
    """The lost step's output never arrives: nothing is in flight or stale."""
    request.num_in_flight_tokens = 0
    request.num_stale_output_tokens = 0


def evict_unconfirmed(ctx: RequeueContext, request: Any) -> None:
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    ids: set[int] = set()
    for group in ctx.kv.coordinator.single_type_managers:
        for block in group.req_to_blocks.get(request.request_id, [])[confirmed // group.block_size :]:
            if not block.is_null:
                ids.add(block.block_id)
    if ids:
        ctx.kv.evict_blocks(ids)
        ctx.evicted += len(ids)


def requeue(ctx: RequeueContext, request: Any) -> None:
    ctx.scheduler.running.remove(request)
    ctx.scheduler._preempt_request(request, ctx.timestamp)


PIPELINE: list[Stage] = [forget_lost_step, evict_unconfirmed, requeue]
