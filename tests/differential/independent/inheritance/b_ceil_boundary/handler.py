# Intended: buggy: the first dirty block index is rounded up (ceiling division) instead of down, so when the confirmed boundary falls inside a block that block, half written by the lost step, is kept in the prefix cache.
# Idioms: abstract template base, a RequestTail class with cached_property for the confirmed count and the first dirty block, classmethod constructor from a request, leaf FaultHandler that aborts.
"""Abort after a fault, invalidating the blocks past the confirmed boundary."""

from __future__ import annotations

import abc
from functools import cached_property

from vllm.utils.math_utils import cdiv
from vllm.v1.request import RequestStatus


class RequestTail:
    def __init__(self, request_id: str, confirmed: int) -> None:
        self.request_id = request_id
        self._confirmed = confirmed

    @classmethod
    def from_request(cls, request) -> "RequestTail":
        return cls(request.request_id, request.num_computed_tokens - request.num_in_flight_tokens)

    @cached_property
    def confirmed(self) -> int:
        return max(0, self._confirmed)

    def first_dirty_block(self, block_size: int) -> int:
        # Blocks fully covered by confirmed tokens are clean.
        return cdiv(self.confirmed, block_size)

    def block_ids(self, manager) -> list[int]:
        blocks = manager.req_to_blocks.get(self.request_id, [])
        return [b.block_id for b in blocks[self.first_dirty_block(manager.block_size) :] if not b.is_null]


class TemplateHandler(abc.ABC):
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        tails = [RequestTail.from_request(r) for r in scheduler.running]
        self.invalidate(tails)
        self.release([t.request_id for t in tails])

    @abc.abstractmethod
    def invalidate(self, tails: list[RequestTail]) -> None: ...

    @abc.abstractmethod
    def release(self, request_ids: list[str]) -> None: ...


class FaultHandler(TemplateHandler):
    def invalidate(self, tails):
        kv = self.engine.scheduler.kv_cache_manager
        kv.evict_blocks({bid for m in kv.coordinator.single_type_managers for t in tails for bid in t.block_ids(m)})

    def release(self, request_ids):
        aborted = self.engine.scheduler.finish_requests(request_ids, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
