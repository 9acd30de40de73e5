from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class FaultedRequest(Protocol):
    request_id: str
    num_computed_tokens: int
    num_in_flight_tokens: int


def for_each_request(scheduler: Any, fn: Callable[[FaultedRequest], None]) -> int:
    """Pop every running request (last first, so FIFO order survives the
    prepends of a preempt) and call ``fn`` on it."""
    count = 0
    while scheduler.running:
        fn(scheduler.running.pop())
        count += 1
    return count
