# Intended: correct. Evicts each running request's unconfirmed tail in every KV-cache group, then aborts or preempts for resume (counters reset).
# Idioms: Java-style interfaces (ABC), visitor over running requests, strategy objects chosen by a switch.
# switch: resume_on_fault
from __future__ import annotations

import time
from abc import ABC, abstractmethod

from vllm.v1.request import RequestStatus


class RequestVisitor(ABC):
    @abstractmethod
    def visit(self, request) -> None: ...


class TailEvictionVisitor(RequestVisitor):
    """Collects the block ids of each visited request's unconfirmed tail."""

    def __init__(self, kvCacheManager) -> None:
        self._kvCacheManager = kvCacheManager
        self._collected: set[int] = set()

    def visit(self, request) -> None:
        confirmedTokens = request.num_computed_tokens - request.num_in_flight_tokens
        for manager in self._kvCacheManager.coordinator.single_type_managers:
            firstDirtyIndex = confirmedTokens // manager.block_size
            blocks = manager.req_to_blocks.get(request.request_id, [])
            for block in blocks[firstDirtyIndex:]:
                if not block.is_null:
                    self._collected.add(block.block_id)

    def getCollected(self) -> set[int]:
        return set(self._collected)


class RecoveryStrategy(ABC):
    @abstractmethod
    def execute(self, engine) -> None: ...


class AbortStrategy(RecoveryStrategy):
    def execute(self, engine) -> None:
        aborted = engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        engine._send_abort_outputs(aborted)


class ResumeStrategy(RecoveryStrategy):
    def execute(self, engine) -> None:
        scheduler = engine.scheduler
        timestamp = time.monotonic()
        for request in list(scheduler.running):
            scheduler.running.remove(request)
            scheduler._preempt_request(request, timestamp)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0


class FaultHandler:
    resume_on_fault: bool = False

    def __init__(self, engine) -> None:
        self.engine = engine

    def _selectStrategy(self) -> RecoveryStrategy:
        return ResumeStrategy() if self.resume_on_fault else AbortStrategy()

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        visitor = TailEvictionVisitor(scheduler.kv_cache_manager)
        for request in scheduler.running:
            visitor.visit(request)
        dirtyIds = visitor.getCollected()
        if dirtyIds:
            scheduler.kv_cache_manager.evict_blocks(dirtyIds)
        self._selectStrategy().execute(self.engine)
