# Intended: buggy: on the resume path the injected counter policy clears num_stale_output_tokens after preempting but leaves num_in_flight_tokens at the lost step's count, so the requeued request's confirmed boundary stays off by the failed step.
# Idioms: Protocol interfaces for a tail evictor, a counter policy and a clock, constructor
# injection with defaults, a mode switch attribute, composition of small collaborator classes.
# switch: resume_on_fault
"""Fault handler with an injected policy for post-preemption bookkeeping."""

from __future__ import annotations

import time
from typing import Any, Protocol

from vllm.v1.request import RequestStatus


class TailEvictor(Protocol):
    def evict(self, request: Any) -> None: ...


class CounterPolicy(Protocol):
    def after_preempt(self, request: Any) -> None: ...


class Clock(Protocol):
    def __call__(self) -> float: ...


class KVTailEvictor:
    def __init__(self, kv: Any) -> None:
        self.kv = kv

    def evict(self, request: Any) -> None:
        start_tok = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
        ids: set[int] = set()
        for m in self.kv.coordinator.single_type_managers:
            for b in (m.req_to_blocks.get(request.request_id) or [])[start_tok // m.block_size :]:
                if not b.is_null:
                    ids.add(b.block_id)
        if ids:
            self.kv.evict_blocks(ids)


class DiscardStaleOutput:
    """The failed step's frame never arrives: don't make the request wait for it."""

    def after_preempt(self, request: Any) -> None:
        request.num_stale_output_tokens = 0


class FaultHandler:
    resume_on_fault = False

    def __init__(
        self,
        engine: Any,
        evictor: TailEvictor | None = None,
        counters: CounterPolicy | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.engine = engine
        self.evictor = evictor or KVTailEvictor(engine.scheduler.kv_cache_manager)
        self.counters = counters or DiscardStaleOutput()
        self.clock = clock or time.monotonic

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        requests = list(scheduler.running)
        for request in requests:
            self.evictor.evict(request)
        if not self.resume_on_fault:
            aborted = scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        ts = self.clock()
        while scheduler.running:
            request = scheduler.running.pop()
            scheduler._preempt_request(request, ts)
            self.counters.after_preempt(request)
