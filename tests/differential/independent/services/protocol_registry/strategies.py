"""Recovery strategies, registered by name."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from vllm.v1.request import RequestStatus

_REGISTRY: dict[str, type[RecoveryStrategy]] = {}


class RecoveryStrategy(Protocol):
    def release(self, engine) -> None: ...


def register(name: str) -> Callable[[type], type]:
    def deco(cls: type) -> type:
        _REGISTRY[name] = cls
        return cls

    return deco


def strategy(name: str) -> RecoveryStrategy:
    try:
        return _REGISTRY[name]()
    except KeyError:
        raise ValueError(f"unknown recovery strategy {name!r}; have {sorted(_REGISTRY)}") from None


@register("abort")
class AbortStrategy:
    def release(self, engine) -> None:
        aborted = engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        engine._send_abort_outputs(aborted)


@register("resume")
class ResumeStrategy:
    def release(self, engine) -> None:
        scheduler = engine.scheduler
        running, scheduler.running = scheduler.running, []
        stamp = time.monotonic()
        for request in running:
            scheduler._preempt_request(request, stamp)
            request.num_in_flight_tokens = request.num_stale_output_tokens = 0
