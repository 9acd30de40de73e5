"""Send requests back to the waiting queue after a failed step."""

from __future__ import annotations

import time
from functools import partial


def preempt_all(scheduler, requests, *, drop_stale_output: bool) -> None:
    leaving = set(map(id, requests))
    scheduler.running = [r for r in scheduler.running if id(r) not in leaving]
    preempt = partial(scheduler._preempt_request, timestamp=time.monotonic(),
                      drop_stale_output=drop_stale_output)
    for request in reversed(requests):
        preempt(request)


# The failed step's output is garbage: make sure it is dropped, not delivered.
requeue_dropping_stale = partial(preempt_all, drop_stale_output=True)
