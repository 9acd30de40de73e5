# Intended: buggy: the eviction visitor drops every block the request holds, not just the unconfirmed tail, so after a failed decode step the clean prompt blocks written by earlier successful steps lose their prefix-cache entries and the resumed request recomputes its whole prefix.
# Idioms: visitor over request entries (accept/visit), an abstract visitor base class, a collector visitor exposing its result through a @property, abort/resume switch selecting a release service.
# switch: requeue_on_fault
"""Fault handler driven by request visitors."""

from __future__ import annotations

from request_visitors import BlockInvalidationVisitor, RequestEntry
from release_service import AbortService, RequeueService


class FaultHandler:
    requeue_on_fault = False

    def __init__(self, engine, abort_service=None, requeue_service=None) -> None:
        self.engine = engine
        self._abort = abort_service or AbortService()
        self._requeue = requeue_service or RequeueService()

    def on_fault(self, exc: Exception) -> None:
        scheduler = self.engine.scheduler
        entries = [RequestEntry(r) for r in scheduler.running]
        invalidation = BlockInvalidationVisitor(scheduler.kv_cache_manager)
        for entry in entries:
            entry.accept(invalidation)
        scheduler.kv_cache_manager.evict_blocks(invalidation.block_ids)
        service = self._requeue if self.requeue_on_fault else self._abort
        service.release(self.engine, [e.request for e in entries])
