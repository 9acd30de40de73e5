# Intended: buggy: it iterates over scheduler.running while each request is taken out of that same list (the resume path removes it, and finish_requests with a single id removes it in place too), so every other request is skipped and keeps its dirty tail in the prefix cache.
# Idioms: abstract per-request template (handle_one = evict_tail then release_one), abort and resume strategies as mixins overriding release_one, a property for the KV-cache managers, switch choosing the mixin method.
# switch: resume_running
"""Per-request fault handling: each running request is handled on its own."""

from __future__ import annotations

import abc
import time

from vllm.v1.request import RequestStatus


class PerRequestHandler(abc.ABC):
    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    @property
    def managers(self):
        return self.scheduler.kv_cache_manager.coordinator.single_type_managers

    def on_fault(self, exc: BaseException) -> None:
        self.now = time.monotonic()
        for request in self.scheduler.running:
            self.handle_one(request)

    def handle_one(self, request) -> None:
        self.evict_tail(request)
        self.release_one(request)

    def evict_tail(self, request) -> None:
        confirmed = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
        ids = set()
        for m in self.managers:
            held = m.req_to_blocks.get(request.request_id, [])
            ids.update(b.block_id for b in held[confirmed // m.block_size :] if not b.is_null)
        self.scheduler.kv_cache_manager.evict_blocks(ids)

    @abc.abstractmethod
    def release_one(self, request) -> None: ...


class AbortOneMixin:
    def abort_one(self, request) -> None:
        aborted = self.scheduler.finish_requests(request.request_id, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)


class PreemptOneMixin:
    def preempt_one(self, request) -> None:
        self.scheduler.running.remove(request)
        self.scheduler._preempt_request(request, self.now)
        request.num_in_flight_tokens = 0
        request.num_stale_output_tokens = 0


class FaultHandler(AbortOneMixin, PreemptOneMixin, PerRequestHandler):
    resume_running = False

    def release_one(self, request) -> None:
        if self.resume_running:
            self.preempt_one(request)
        else:
            self.abort_one(request)
