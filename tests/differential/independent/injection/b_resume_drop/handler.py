# Intended: buggy: the default preempt collaborator is pre-bound with drop_stale_output=True, so each requeued request is marked to drop its next output frame as stale, but the failed step's frame never arrives and the first good frame after resume is thrown away.
# Idioms: functools.partial pre-binding scheduler methods and keyword options as injected
# collaborators, a small registry dict of release modes, Protocol for the evictor, a clock seam.
# switch: RESUME
"""Fault handler whose scheduler operations are injected as pre-bound callables."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any, Protocol

from vllm.v1.request import RequestStatus


class Evictor(Protocol):
    def __call__(self, request: Any) -> None: ...


def evict_unconfirmed(kv: Any, request: Any) -> None:
    confirmed = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
    ids = {
        b.block_id
        for mgr in kv.coordinator.single_type_managers
        for b in (mgr.req_to_blocks.get(request.request_id) or [])[confirmed // mgr.block_size :]
        if not b.is_null
    }
    if ids:
        kv.evict_blocks(ids)


class FaultHandler:
    RESUME = False

    def __init__(
        self,
        engine: Any,
        evict: Evictor | None = None,
        preempt: Callable[[Any, float], None] | None = None,
        abort: Callable[[list[str]], list[Any]] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine = engine
        sched = engine.scheduler
        self.evict = evict or functools.partial(evict_unconfirmed, sched.kv_cache_manager)
        # Outputs of the failed step must never reach the client after resume.
        self.preempt = preempt or functools.partial(sched._preempt_request, drop_stale_output=True)
        self.abort = abort or functools.partial(sched.finish_requests, finished_status=RequestStatus.FINISHED_ABORTED)
        self.clock = clock
        self.modes: dict[bool, Callable[[list[Any]], None]] = {True: self._requeue, False: self._abort}

    def _requeue(self, requests: list[Any]) -> None:
        stamp = self.clock()
        running = self.engine.scheduler.running
        for request in reversed(requests):
            running.remove(request)
            self.preempt(request, stamp)
            request.num_in_flight_tokens = 0

    def _abort(self, requests: list[Any]) -> None:
        self.engine._send_abort_outputs(self.abort([r.request_id for r in requests]))

    def on_fault(self, exc: BaseException) -> None:
        requests = list(self.engine.scheduler.running)
        for request in requests:
            self.evict(request)
        self.modes[bool(self.RESUME)](requests)
