# Intended: buggy: the injected boundary calculator rounds the confirmed token count up to a whole block, so when the confirmed boundary falls inside a block, that partly-confirmed block (which the failed step completed and cached) is not evicted.
# Idioms: a Protocol boundary calculator and evictor injected through the constructor,
# functools.partial pre-binding the KV-cache manager, default collaborators when None.
"""Abort-on-fault handler with a pluggable block-boundary calculator."""

from __future__ import annotations

import functools
from typing import Any, Callable, Protocol

from vllm.v1.request import RequestStatus


class BlockBoundary(Protocol):
    def first_unconfirmed_block(self, request: Any, block_size: int) -> int: ...


class WholeBlockBoundary:
    """Index of the first block that is not fully backed by confirmed tokens."""

    def first_unconfirmed_block(self, request: Any, block_size: int) -> int:
        confirmed = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
        return -(-confirmed // block_size)


def evict_from(kv_cache_manager: Any, boundary: BlockBoundary, request: Any) -> None:
    ids = set()
    for manager in kv_cache_manager.coordinator.single_type_managers:
        start = boundary.first_unconfirmed_block(request, manager.block_size)
        ids.update(b.block_id for b in manager.req_to_blocks.get(request.request_id, [])[start:] if not b.is_null)
    if ids:
        kv_cache_manager.evict_blocks(ids)


class FaultHandler:
    def __init__(
        self,
        engine: Any,
        boundary: BlockBoundary | None = None,
        evict: Callable[[Any], None] | None = None,
    ) -> None:
        self.engine = engine
        self.boundary = boundary or WholeBlockBoundary()
        self.evict = evict or functools.partial(evict_from, engine.scheduler.kv_cache_manager, self.boundary)

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        requests = list(scheduler.running)
        for request in requests:
            self.evict(request)
        aborted = scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
