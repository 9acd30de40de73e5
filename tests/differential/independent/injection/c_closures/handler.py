# Intended: correct.
# Idioms: collaborators as closures built by make_* factory functions, a dataclass bundle of
# injected callables with default_factory wiring, fakes-ready seams (requests come from an
# injected source function), an injected logger callable.
# switch: RESUME_ON_FAULT
"""Fault handler made of closures; each seam is a plain callable."""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from vllm.v1.request import RequestStatus

RequestSource = Callable[[], list[Any]]
TailEvictor = Callable[[Iterable[Any]], int]
Finisher = Callable[[list[Any]], None]


def make_request_source(scheduler: Any) -> RequestSource:
    return lambda: list(scheduler.running)


def make_tail_evictor(kv_cache_manager: Any) -> TailEvictor:
    groups = kv_cache_manager.coordinator.single_type_managers

    def evict(requests: Iterable[Any]) -> int:
        victims: set[int] = set()
        for req in requests:
            safe_tokens = max(0, req.num_computed_tokens - req.num_in_flight_tokens)
            for g in groups:
                held = g.req_to_blocks.get(req.request_id) or []
                victims.update(b.block_id for b in held[safe_tokens // g.block_size :] if not b.is_null)
        if victims:
            kv_cache_manager.evict_blocks(victims)
        return len(victims)

    return evict


def make_aborter(engine: Any) -> Finisher:
    def abort(requests: list[Any]) -> None:
        done = engine.scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
        engine._send_abort_outputs(done)

    return abort


def make_requeuer(scheduler: Any, clock: Callable[[], float] = time.monotonic) -> Finisher:
    def requeue(requests: list[Any]) -> None:
        stamp = clock()
        doomed = set(requests)
        scheduler.running = [r for r in scheduler.running if r not in doomed]
        for r in reversed(requests):
            scheduler._preempt_request(r, stamp)
            r.num_in_flight_tokens = 0
            r.num_stale_output_tokens = 0

    return requeue


@dataclasses.dataclass
class Seams:
    source: RequestSource
    evict_tail: TailEvictor
    abort: Finisher
    requeue: Finisher
    log: Callable[..., None] = logging.getLogger("ft").warning

    @classmethod
    def for_engine(cls, engine: Any, **fakes: Any) -> "Seams":
        sched = engine.scheduler
        wired = dict(
            source=make_request_source(sched),
            evict_tail=make_tail_evictor(sched.kv_cache_manager),
            abort=make_aborter(engine),
            requeue=make_requeuer(sched),
        )
        wired.update(fakes)
        return cls(**wired)


class FaultHandler:
    RESUME_ON_FAULT = False

    def __init__(self, engine: Any, seams: Seams | None = None) -> None:
        self.engine = engine
        self.seams = seams or Seams.for_engine(engine)

    def on_fault(self, exc: BaseException) -> None:
        s = self.seams
        requests = s.source()
        n = s.evict_tail(requests)
        (s.requeue if self.RESUME_ON_FAULT else s.abort)(requests)
        s.log("fault %s: %d tail blocks evicted from %d requests", exc, n, len(requests))
