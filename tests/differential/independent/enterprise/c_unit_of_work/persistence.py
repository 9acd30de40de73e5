from __future__ import annotations

import time
from enum import Enum, auto

from vllm.v1.request import RequestStatus


class Transition(Enum):
    ABORT = auto()
    PREEMPT = auto()


class RequestEntity:
    """A running request plus read access to its KV block tables."""

    def __init__(self, request, kv_cache_manager) -> None:
        self._request = request
        self._kv = kv_cache_manager

    @property
    def request(self):
        return self._request

    @property
    def request_id(self) -> str:
        return self._request.request_id

    @property
    def confirmed_tokens(self) -> int:
        return self._request.num_computed_tokens - self._request.num_in_flight_tokens

    def unconfirmed_block_ids(self) -> set[int]:
        out: set[int] = set()
        for manager in self._kv.coordinator.single_type_managers:
            table = manager.req_to_blocks.get(self.request_id, [])
            first = self.confirmed_tokens // manager.block_size
            out.update(b.block_id for b in table[first:] if not b.is_null)
        return out


class RequestRepository:
    def __init__(self, scheduler) -> None:
        self._scheduler = scheduler

    def running(self) -> list[RequestEntity]:
        kv = self._scheduler.kv_cache_manager
        return [RequestEntity(r, kv) for r in self._scheduler.running]


class SchedulerUnitOfWork:
    """Collects changes; commit() applies evictions, then transitions."""

    def __init__(self, engine) -> None:
        self._engine = engine
        self._evictions: set[int] = set()
        self._transitions: list[tuple[RequestEntity, Transition]] = []

    def __enter__(self) -> "SchedulerUnitOfWork":
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None:
            self.commit()
        return False

    def stage_eviction(self, block_ids: set[int]) -> None:
        self._evictions |= block_ids

    def stage_transition(self, entity: RequestEntity, transition: Transition) -> None:
        self._transitions.append((entity, transition))

    def commit(self) -> None:
        scheduler = self._engine.scheduler
        scheduler.kv_cache_manager.evict_blocks(self._evictions)
        aborts = [e.request_id for e, t in self._transitions if t is Transition.ABORT]
        if aborts:
            finished = scheduler.finish_requests(aborts, RequestStatus.FINISHED_ABORTED)
            self._engine._send_abort_outputs(finished)
        now = time.monotonic()
        for entity, transition in reversed(self._transitions):
            if transition is not Transition.PREEMPT:
                continue
            request = entity.request
            scheduler.running.remove(request)
            scheduler._preempt_request(request, now)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
        self._evictions.clear()
        self._transitions.clear()
