# Intended: correct.
# Idioms: classmethod alternative constructors (from_engine, for_abort, for_resume), a frozen dataclass TailSpan with a classmethod factory and properties in a helper module, an abstract base whose on_fault is a template, subclass extending release with super().
# switch: resume
"""Fault handler built through alternative constructors; the tail arithmetic lives
in ``tailspans``."""

from __future__ import annotations

import abc
import time

from tailspans import TailSpan
from vllm.v1.request import RequestStatus


class RecoveringHandler(abc.ABC):
    resume: bool = False

    def __init__(self, engine, *, resume: bool | None = None) -> None:
        self.engine = engine
        if resume is not None:
            self.resume = resume

    @classmethod
    def from_engine(cls, engine) -> "RecoveringHandler":
        return cls(engine)

    @classmethod
    def for_abort(cls, engine) -> "RecoveringHandler":
        return cls(engine, resume=False)

    @classmethod
    def for_resume(cls, engine) -> "RecoveringHandler":
        return cls(engine, resume=True)

    @property
    def scheduler(self):
        return self.engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        spans = [TailSpan.of(r) for r in self.scheduler.running]
        self.invalidate(spans)
        self.release(spans)

    @abc.abstractmethod
    def invalidate(self, spans: list[TailSpan]) -> None: ...

    def release(self, spans: list[TailSpan]) -> None:
        ids = [s.request_id for s in spans]
        if not self.resume:
            aborted = self.scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        now = time.monotonic()
        for rid in reversed(ids):
            request = self.scheduler.requests[rid]
            self.scheduler.running.remove(request)
            self.scheduler._preempt_request(request, now)


class FaultHandler(RecoveringHandler):
    def invalidate(self, spans: list[TailSpan]) -> None:
        kv = self.scheduler.kv_cache_manager
        dirty: set[int] = set()
        for manager in kv.coordinator.single_type_managers:
            for span in spans:
                if not span.empty:
                    dirty.update(span.block_ids(manager))
        kv.evict_blocks(dirty)

    def release(self, spans: list[TailSpan]) -> None:
        super().release(spans)
        if self.resume:
            for span in spans:
                request = self.scheduler.requests[span.request_id]
                request.num_in_flight_tokens = 0
                request.num_stale_output_tokens = 0
