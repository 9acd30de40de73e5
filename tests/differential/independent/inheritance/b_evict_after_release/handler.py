# Intended: buggy: the eviction hook runs after the requests were aborted, when their block lists have already been popped from the KV-cache managers, so it finds no blocks and the dirty tail stays in the prefix cache.
# Idioms: abc.ABC template method (select_requests / release / after_release), a per-request tail object with cached_property, an eviction mixin hooking after_release through super(), leaf FaultHandler.
"""Abort on fault; the tail of every aborted request is invalidated afterwards."""

from __future__ import annotations

import abc
from functools import cached_property

from vllm.v1.request import RequestStatus


class UnconfirmedTail:
    def __init__(self, request, managers) -> None:
        self.request = request
        self.managers = managers

    @cached_property
    def start_token(self) -> int:
        r = self.request
        return max(0, r.num_computed_tokens - r.num_in_flight_tokens)

    @cached_property
    def block_ids(self) -> set[int]:
        out: set[int] = set()
        for m in self.managers:
            blocks = m.req_to_blocks.get(self.request.request_id, [])
            out.update(b.block_id for b in blocks[self.start_token // m.block_size :] if not b.is_null)
        return out


class AbortingHandler(abc.ABC):
    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        requests = self.select_requests()
        released = self.release(requests)
        self.after_release(released)

    @abc.abstractmethod
    def select_requests(self) -> list: ...

    def release(self, requests: list) -> list:
        return self.scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)

    def after_release(self, released: list) -> None:
        self.engine._send_abort_outputs(released)


class TailInvalidationMixin:
    def after_release(self, released):
        super().after_release(released)
        managers = self.scheduler.kv_cache_manager.coordinator.single_type_managers
        dirty: set[int] = set()
        for request in released:
            dirty |= UnconfirmedTail(request, managers).block_ids
        self.scheduler.kv_cache_manager.evict_blocks(dirty)


class FaultHandler(TailInvalidationMixin, AbortingHandler):
    def select_requests(self) -> list:
        return list(self.scheduler.running)
