from __future__ import annotations

import heapq
import itertools
from abc import ABC, abstractmethod

from vllm.v1.request import RequestStatus


class Operation(ABC):
    @abstractmethod
    def execute(self) -> None: ...


class AbortOperation(Operation):
    def __init__(self, engine, requests) -> None:
        self._engine = engine
        self._ids = [r.request_id for r in requests]

    def execute(self) -> None:
        done = self._engine.scheduler.finish_requests(self._ids, RequestStatus.FINISHED_ABORTED)
        self._engine._send_abort_outputs(done)


class EvictTailOperation(Operation):
    def __init__(self, engine, request) -> None:
        self._engine = engine
        self._request = request

    def execute(self) -> None:
        kv = self._engine.scheduler.kv_cache_manager
        req = self._request
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        ids = set()
        for manager in kv.coordinator.single_type_managers:
            blocks = manager.req_to_blocks.get(req.request_id, [])
            ids.update(b.block_id for b in blocks[confirmed // manager.block_size :] if not b.is_null)
        kv.evict_blocks(ids)


class OperationFactory:
    def __init__(self, engine) -> None:
        self._engine = engine

    def abort(self, requests) -> Operation:
        return AbortOperation(self._engine, requests)

    def evict_tail(self, request) -> Operation:
        return EvictTailOperation(self._engine, request)


class PriorityInvoker:
    def __init__(self) -> None:
        self._heap: list = []
        self._seq = itertools.count()

    def submit(self, op: Operation, priority: int) -> None:
        heapq.heappush(self._heap, (priority, next(self._seq), op))

    def drain(self) -> None:
        while self._heap:
            _, _, op = heapq.heappop(self._heap)
            op.execute()
