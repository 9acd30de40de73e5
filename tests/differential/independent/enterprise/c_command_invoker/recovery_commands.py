"""Commands executed by the fault handler."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections import deque

from vllm.v1.request import RequestStatus


class Command(ABC):
    @abstractmethod
    def execute(self) -> None: ...


class EvictTailCommand(Command):
    def __init__(self, scheduler, request) -> None:
        self._kv = scheduler.kv_cache_manager
        self._request = request

    def execute(self) -> None:
        req = self._request
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        ids = set()
        for mgr in self._kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(req.request_id, [])
            start = confirmed // mgr.block_size
            ids.update(b.block_id for b in blocks[start:] if not b.is_null)
        self._kv.evict_blocks(ids)


class RequeueCommand(Command):
    def __init__(self, scheduler, request, timestamp: float) -> None:
        self._scheduler = scheduler
        self._request = request
        self._timestamp = timestamp

    def execute(self) -> None:
        self._scheduler.running.remove(self._request)
        self._scheduler._preempt_request(self._request, self._timestamp)
        self._request.num_in_flight_tokens = 0
        self._request.num_stale_output_tokens = 0


class AbortCommand(Command):
    def __init__(self, engine, requests) -> None:
        self._engine = engine
        self._ids = [r.request_id for r in requests]

    def execute(self) -> None:
        aborted = self._engine.scheduler.finish_requests(self._ids, RequestStatus.FINISHED_ABORTED)
        self._engine._send_abort_outputs(aborted)


class CommandFactory:
    def evict_tail(self, scheduler, request) -> Command:
        return EvictTailCommand(scheduler, request)

    def requeue(self, scheduler, request) -> Command:
        return RequeueCommand(scheduler, request, time.monotonic())

    def abort_all(self, engine, requests) -> Command:
        return AbortCommand(engine, requests)


class CommandInvoker:
    def __init__(self) -> None:
        self._queue: deque[Command] = deque()

    def enqueue(self, command: Command) -> None:
        self._queue.append(command)

    def run(self) -> None:
        while self._queue:
            self._queue.popleft().execute()
