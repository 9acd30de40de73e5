"""The two recovery paths, each a callable object wired with its collaborators."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from vllm.v1.request import RequestStatus


class Evictor(Protocol):
    def __call__(self, requests: list[Any]) -> None: ...


def make_tail_evictor(kv: Any) -> Evictor:
    def evict(requests: list[Any]) -> None:
        ids: set[int] = set()
        for req in requests:
            ok_tokens = max(0, req.num_computed_tokens - req.num_in_flight_tokens)
            for mgr in kv.coordinator.single_type_managers:
                for block in (mgr.req_to_blocks.get(req.request_id) or [])[ok_tokens // mgr.block_size :]:
                    if not block.is_null:
                        ids.add(block.block_id)
        if ids:
            kv.evict_blocks(ids)

    return evict


class ResumePath:
    """Requeue: the requests will recompute, so scrub what they would re-hit."""

    def __init__(self, scheduler: Any, evict: Evictor, clock: Callable[[], float] = time.monotonic) -> None:
        self.scheduler, self.evict, self.clock = scheduler, evict, clock

    def __call__(self, requests: list[Any]) -> None:
        self.evict(requests)
        ts = self.clock()
        for req in reversed(requests):
            self.scheduler.running.remove(req)
            self.scheduler._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0


class AbortPath:
    """Abort: the requests are finished, nobody will read their KV again."""

    def __init__(self, scheduler: Any, notify: Callable[[list[Any]], None]) -> None:
        self.scheduler, self.notify = scheduler, notify

    def __call__(self, requests: list[Any]) -> None:
        self.notify(self.scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED))
