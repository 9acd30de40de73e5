"""Observer classes attached to the fault subject.

Each observer implements ``update(event)``; the subject notifies them in the
order they were attached.  The event is a dict-like ``FaultNotice``.
"""

from __future__ import annotations

import abc
import time
from dataclasses import dataclass, field
from typing import Any

from vllm.v1.request import RequestStatus


@dataclass
class FaultNotice:
    phase: str  # "prepare" or "retire"
    scheduler: Any
    requests: list
    resume: bool
    evicted: set = field(default_factory=set)
    aborted: list = field(default_factory=list)


class FaultObserver(abc.ABC):
    @abc.abstractmethod
    def update(self, notice: FaultNotice) -> None: ...


class UnconfirmedTailEvictor(FaultObserver):
    """On ``prepare``: evict each request's unconfirmed tail in every group."""

    def update(self, notice: FaultNotice) -> None:
        if notice.phase != "prepare":
            return
        kv = notice.scheduler.kv_cache_manager
        for req in notice.requests:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                owned = mgr.req_to_blocks.get(req.request_id) or []
                tail = owned[confirmed // mgr.block_size:]
                notice.evicted.update(b.block_id for b in tail if not b.is_null)
        kv.evict_blocks(notice.evicted)


class RequestRetirer(FaultObserver):
    """On ``retire``: abort every request, or send it back to waiting."""

    def update(self, notice: FaultNotice) -> None:
        if notice.phase != "retire":
            return
        sched = notice.scheduler
        if notice.resume:
            stamp = time.monotonic()
            for req in reversed(notice.requests):
                sched.running.remove(req)
                sched._preempt_request(req, stamp)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            notice.aborted = sched.finish_requests(
                [r.request_id for r in notice.requests], RequestStatus.FINISHED_ABORTED
            )


class FaultSubject:
    def __init__(self) -> None:
        self._observers: list[FaultObserver] = []

    def attach(self, observer: FaultObserver) -> None:
        self._observers.append(observer)

    def detach(self, observer: FaultObserver) -> None:
        self._observers.remove(observer)

    def notify(self, notice: FaultNotice) -> None:
        for observer in self._observers:
            observer.update(notice)
