# Intended: correct.
# Idioms: a SchedulerGuard class wrapping a threading.RLock as a context manager, re-entered by its own methods, per-request evict-then-finish under one lock hold, contextlib.suppress around a queue removal, an abort/resume switch.
# switch: resume
"""Fault handler that serialises every scheduler mutation through one RLock."""

from __future__ import annotations

import contextlib
import threading
import time

from vllm.v1.request import RequestStatus


class SchedulerGuard:
    """Re-entrant guard: public methods lock, and may call each other."""

    def __init__(self, scheduler):
        self.scheduler = scheduler
        self._lock = threading.RLock()

    def __enter__(self):
        self._lock.acquire()
        return self

    def __exit__(self, *exc_info):
        self._lock.release()
        return False

    def unconfirmed_blocks(self, request) -> set[int]:
        with self:
            coord = self.scheduler.kv_cache_manager.coordinator
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            out: set[int] = set()
            for mgr in coord.single_type_managers:
                blocks = mgr.req_to_blocks.get(request.request_id, [])
                idx = confirmed // mgr.block_size if confirmed > 0 else 0
                out.update(b.block_id for b in blocks[idx:] if not b.is_null)
            return out

    def evict_tail(self, request) -> None:
        with self:
            ids = self.unconfirmed_blocks(request)
            if ids:
                self.scheduler.kv_cache_manager.evict_blocks(ids)

    def abort(self, request):
        with self:
            self.evict_tail(request)
            return self.scheduler.finish_requests(request.request_id, RequestStatus.FINISHED_ABORTED)

    def requeue(self, request, timestamp) -> None:
        with self:
            self.evict_tail(request)
            with contextlib.suppress(ValueError):
                self.scheduler.running.remove(request)
            self.scheduler._preempt_request(request, timestamp)
            request.num_stale_output_tokens = 0
            request.num_in_flight_tokens = 0


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine
        self.guard = SchedulerGuard(engine.scheduler)

    def on_fault(self, exc):
        with self.guard:
            victims = list(self.guard.scheduler.running)
            if self.resume:
                ts = time.monotonic()
                for req in reversed(victims):
                    self.guard.requeue(req, ts)
                return
            aborted = []
            for req in victims:
                aborted.extend(self.guard.abort(req))
        self.engine._send_abort_outputs(aborted)
