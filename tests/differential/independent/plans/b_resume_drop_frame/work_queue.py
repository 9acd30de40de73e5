"""A work queue of recovery commands; a command may return follow-up commands,
which run before anything queued after it."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any, Protocol


class Work(Protocol):
    def __call__(self, scheduler: Any) -> Iterable["Work"] | None: ...


def drain(scheduler, initial: Iterable[Work], limit: int = 10_000) -> int:
    queue: deque[Work] = deque(initial)
    done = 0
    while queue:
        if done >= limit:
            raise RuntimeError("recovery work queue did not drain")
        follow_ups = queue.popleft()(scheduler)
        done += 1
        if follow_ups:
            queue.extendleft(reversed(list(follow_ups)))
    return done
