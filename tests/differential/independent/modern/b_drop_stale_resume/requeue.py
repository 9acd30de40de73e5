"""Sending interrupted requests back to the waiting queue."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Protocol


class Preempting(Protocol):
    running: list[Any]

    def _preempt_request(self, request: Any, timestamp: float, drop_stale_output: bool = ...) -> None: ...


def requeue(scheduler: Preempting, requests: Sequence[Any], *, timestamp: float | None = None) -> None:
    """Preempt ``requests`` (FIFO order kept), discarding whatever the failed
    step still had in flight so the resumed request starts from clean counters."""
    ts = time.monotonic() if timestamp is None else timestamp
    for req in reversed(requests):
        scheduler.running.remove(req)
        scheduler._preempt_request(req, ts, drop_stale_output=True)
        req.num_in_flight_tokens = 0
