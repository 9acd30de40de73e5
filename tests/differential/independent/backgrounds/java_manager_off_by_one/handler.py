# Intended: buggy: KvTailManager starts the tail one block past the confirmed boundary (confirmed // block_size + 1), so the block holding the boundary, which the failed step filled, stays cached on both paths.
# Idioms: Java style: manager/service classes with getters, dependency injection through constructors, an enum for the recovery mode.
# switch: useResume
from __future__ import annotations

import enum
import time

from vllm.v1.request import RequestStatus


class RecoveryMode(enum.Enum):
    ABORT = "abort"
    RESUME = "resume"


class KvTailManager:
    def __init__(self, kvCacheManager) -> None:
        self.kvCacheManager = kvCacheManager

    def getGroupManagers(self):
        return self.kvCacheManager.coordinator.single_type_managers

    def getConfirmedTokenCount(self, request) -> int:
        return request.num_computed_tokens - request.num_in_flight_tokens

    def getFirstDirtyBlockIndex(self, request, groupManager) -> int:
        return self.getConfirmedTokenCount(request) // groupManager.block_size + 1

    def getDirtyBlockIds(self, request) -> set[int]:
        result: set[int] = set()
        for gm in self.getGroupManagers():
            blocks = gm.req_to_blocks.get(request.request_id, [])
            for block in blocks[self.getFirstDirtyBlockIndex(request, gm):]:
                result.add(block.block_id)
        return result

    def evictDirtyTails(self, requests) -> int:
        allIds: set[int] = set()
        for request in requests:
            allIds |= self.getDirtyBlockIds(request)
        if allIds:
            self.kvCacheManager.evict_blocks(allIds)
        return len(allIds)


class RequestLifecycleService:
    def __init__(self, engine) -> None:
        self.engine = engine

    def abortAll(self) -> None:
        aborted = self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    def preemptAll(self, requests) -> None:
        scheduler = self.engine.scheduler
        timestamp = time.monotonic()
        for request in requests:
            scheduler.running.remove(request)
            scheduler._preempt_request(request, timestamp)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0


class FaultHandler:
    useResume = False

    def __init__(self, engine) -> None:
        self.engine = engine
        self.tailManager = KvTailManager(engine.scheduler.kv_cache_manager)
        self.lifecycleService = RequestLifecycleService(engine)

    def getMode(self) -> RecoveryMode:
        return RecoveryMode.RESUME if self.useResume else RecoveryMode.ABORT

    def on_fault(self, exc) -> None:
        running = list(self.engine.scheduler.running)
        self.tailManager.evictDirtyTails(running)
        if self.getMode() is RecoveryMode.RESUME:
            self.lifecycleService.preemptAll(running)
        else:
            self.lifecycleService.abortAll()
