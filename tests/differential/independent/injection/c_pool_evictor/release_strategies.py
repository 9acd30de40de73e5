"""Release strategies, registered by name with a decorator."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol


class ReleaseStrategy(Protocol):
    def __call__(self, scheduler: Any, requests: Sequence[Any], now: float) -> list[Any]: ...


STRATEGIES: dict[str, ReleaseStrategy] = {}


def strategy(name: str) -> Callable[[ReleaseStrategy], ReleaseStrategy]:
    def register(fn: ReleaseStrategy) -> ReleaseStrategy:
        STRATEGIES[name] = fn
        return fn

    return register


@strategy("abort")
def abort(scheduler: Any, requests: Sequence[Any], now: float) -> list[Any]:
    from vllm.v1.request import RequestStatus

    return scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)


@strategy("requeue")
def requeue(scheduler: Any, requests: Sequence[Any], now: float) -> list[Any]:
    for request in reversed(list(requests)):
        scheduler.running.remove(request)
        scheduler._preempt_request(request, now)
        # nothing of the failed step will ever be delivered
        request.num_stale_output_tokens = 0
        request.num_in_flight_tokens = 0
    return []
