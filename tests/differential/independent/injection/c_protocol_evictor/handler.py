# Intended: correct.
# Idioms: typing.Protocol interfaces for every collaborator (boundary calculator, block
# evictor, request releaser, logger), constructor injection with defaults chosen when None
# is passed, composition of small single-purpose classes.
"""Fault handler for the engine busy loop, written against injected collaborators.

Every object the handler touches is reached through a collaborator passed to the
constructor, so unit tests can hand in fakes; production wiring passes nothing and
gets the vLLM-backed defaults below.
"""

from __future__ import annotations

import logging
from typing import Any, Iterable, Protocol

from vllm.v1.request import Request, RequestStatus


class BoundaryCalculator(Protocol):
    def confirmed_tokens(self, request: Request) -> int:
        """Tokens whose KV was written by steps that reported back."""


class BlockEvictor(Protocol):
    def evict_unconfirmed(self, request: Request, confirmed: int) -> int:
        """Drop prefix-cache entries for blocks at or after ``confirmed``; returns count."""


class RequestReleaser(Protocol):
    def release(self, requests: Iterable[Request]) -> list[Request]:
        """Take the requests out of the scheduler, returning those actually released."""


class EventLogger(Protocol):
    def warning(self, msg: str, *args: Any) -> None: ...

    def info(self, msg: str, *args: Any) -> None: ...


class InFlightBoundary:
    """The boundary the scheduler itself caches up to."""

    def confirmed_tokens(self, request: Request) -> int:
        return max(0, request.num_computed_tokens - request.num_in_flight_tokens)


class KVCacheTailEvictor:
    """Evicts the unconfirmed tail of a request in every KV-cache group."""

    def __init__(self, kv_cache_manager: Any) -> None:
        self._kv = kv_cache_manager

    def evict_unconfirmed(self, request: Request, confirmed: int) -> int:
        doomed: set[int] = set()
        for manager in self._kv.coordinator.single_type_managers:
            blocks = manager.req_to_blocks.get(request.request_id) or []
            first_dirty = confirmed // manager.block_size
            doomed.update(
                b.block_id for b in blocks[first_dirty:] if not b.is_null and b.block_hash is not None
            )
        if doomed:
            self._kv.evict_blocks(doomed)
        return len(doomed)


class AbortingReleaser:
    def __init__(self, scheduler: Any, notify: Any = None) -> None:
        self._scheduler = scheduler
        self._notify = notify

    def release(self, requests: Iterable[Request]) -> list[Request]:
        ids = [r.request_id for r in requests]
        aborted = self._scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED)
        if self._notify is not None:
            self._notify(aborted)
        return aborted


class FaultHandler:
    def __init__(
        self,
        engine: Any,
        boundary: BoundaryCalculator | None = None,
        evictor: BlockEvictor | None = None,
        releaser: RequestReleaser | None = None,
        log: EventLogger | None = None,
    ) -> None:
        self.engine = engine
        scheduler = engine.scheduler
        self.boundary = boundary or InFlightBoundary()
        self.evictor = evictor or KVCacheTailEvictor(scheduler.kv_cache_manager)
        self.releaser = releaser or AbortingReleaser(
            scheduler, getattr(engine, "_send_abort_outputs", None)
        )
        self.log = log or logging.getLogger(__name__)

    def on_fault(self, exc: BaseException) -> None:
        self.log.warning("busy loop failed (%s); aborting running requests", type(exc).__name__)
        running = list(self.engine.scheduler.running)
        evicted = 0
        for request in running:
            evicted += self.evictor.evict_unconfirmed(request, self.boundary.confirmed_tokens(request))
        aborted = self.releaser.release(running)
        self.log.info("evicted %d unconfirmed blocks, aborted %d requests", evicted, len(aborted))
