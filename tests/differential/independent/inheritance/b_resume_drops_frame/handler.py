# Intended: buggy: the resume subclass preempts with drop_stale_output=True to discard the lost step's output, but that frame never arrives, so the request is marked to drop the first good frame after it resumes.
# Idioms: abstract base with template method and a preempt hook, subclass overriding preempt_one and extending it with super(), tail eviction in a base-class method using a property per request (nested helper class), resume-only handler.
"""Resume-only fault handler: preempt every running request, dropping stale output."""

from __future__ import annotations

import abc
import time


class ResumeTemplate(abc.ABC):
    class Tail:
        def __init__(self, request) -> None:
            self.request = request

        @property
        def start(self) -> int:
            r = self.request
            return max(0, r.num_computed_tokens - r.num_in_flight_tokens)

    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        requests = list(self.scheduler.running)
        self.evict_tails(requests)
        now = time.monotonic()
        for request in reversed(requests):
            self.scheduler.running.remove(request)
            self.preempt_one(request, now)

    def evict_tails(self, requests) -> None:
        kv = self.scheduler.kv_cache_manager
        ids = set()
        for m in kv.coordinator.single_type_managers:
            for r in requests:
                start = self.Tail(r).start
                held = m.req_to_blocks.get(r.request_id, [])
                ids.update(b.block_id for b in held[start // m.block_size :] if not b.is_null)
        kv.evict_blocks(ids)

    @abc.abstractmethod
    def preempt_one(self, request, timestamp: float) -> None: ...


class DiscardingPreempt(ResumeTemplate):
    def preempt_one(self, request, timestamp: float) -> None:
        # Whatever the failed step produced is garbage: drop it instead of delivering it.
        self.scheduler._preempt_request(request, timestamp, drop_stale_output=True)


class FaultHandler(DiscardingPreempt):
    def preempt_one(self, request, timestamp: float) -> None:
        super().preempt_one(request, timestamp)
        request.num_in_flight_tokens = 0
