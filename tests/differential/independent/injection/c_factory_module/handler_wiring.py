"""Factories that assemble a fault handler's parts from an engine.

Kept apart from the handler so tests can build the parts with fakes and so the
engine-facing code lives in one place.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Callable, Protocol


class TailLocator(Protocol):
    def __call__(self, request: Any) -> set[int]: ...


class Evictor(Protocol):
    def __call__(self, block_ids: set[int]) -> None: ...


@dataclasses.dataclass(frozen=True)
class HandlerParts:
    scheduler: Any
    locate_tail: TailLocator
    evict: Evictor
    abort: Callable[[list[str]], list[Any]]
    requeue: Callable[[Any, float], None]
    now: Callable[[], float]
    on_aborted: Callable[[list[Any]], None]


def make_tail_locator(scheduler: Any) -> TailLocator:
    managers = scheduler.kv_cache_manager.coordinator.single_type_managers

    def locate(request: Any) -> set[int]:
        in_flight_from = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
        out: set[int] = set()
        for m in managers:
            for idx, block in enumerate(m.req_to_blocks.get(request.request_id, [])):
                if idx >= in_flight_from // m.block_size and not block.is_null:
                    out.add(block.block_id)
        return out

    return locate


def make_requeue(scheduler: Any) -> Callable[[Any, float], None]:
    def requeue(request: Any, timestamp: float) -> None:
        scheduler.running.remove(request)
        scheduler._preempt_request(request, timestamp)
        request.num_stale_output_tokens = 0
        request.num_in_flight_tokens = 0

    return requeue


def build_parts(engine: Any, **overrides: Any) -> HandlerParts:
    from vllm.v1.request import RequestStatus

    scheduler = engine.scheduler
    defaults = dict(
        scheduler=scheduler,
        locate_tail=make_tail_locator(scheduler),
        evict=scheduler.kv_cache_manager.evict_blocks,
        abort=lambda ids: scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED),
        requeue=make_requeue(scheduler),
        now=time.monotonic,
        on_aborted=getattr(engine, "_send_abort_outputs", lambda reqs: None),
    )
    unknown = set(overrides) - set(defaults)
    if unknown:
        raise TypeError(f"unknown handler parts: {sorted(unknown)}")
    defaults.update(overrides)
    return HandlerParts(**defaults)
