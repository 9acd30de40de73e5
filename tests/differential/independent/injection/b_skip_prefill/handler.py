# Intended: buggy: the injected request selector only picks requests that already produced output tokens, so requests whose prefill step failed are aborted without having their unconfirmed blocks evicted from the prefix cache.
# Idioms: a Protocol request selector (a predicate filter) injected through the constructor,
# Protocol evictor and aborter with defaults, composition; the selector is a fakes-ready seam.
"""Abort-on-fault handler with an injected selection of requests to scrub."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from vllm.v1.request import RequestStatus


class RequestSelector(Protocol):
    def select(self, requests: Iterable[Any]) -> list[Any]: ...


class Evictor(Protocol):
    def evict_unconfirmed(self, request: Any) -> None: ...


class Aborter(Protocol):
    def abort(self, requests: list[Any]) -> None: ...


class DecodingRequests:
    """Requests that have emitted output: the ones with a decode step in flight."""

    def select(self, requests: Iterable[Any]) -> list[Any]:
        return [r for r in requests if r.num_output_tokens > 0]


class UnconfirmedTailEvictor:
    def __init__(self, kv: Any) -> None:
        self.kv = kv

    def evict_unconfirmed(self, request: Any) -> None:
        confirmed = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
        ids: set[int] = set()
        for mgr in self.kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(request.request_id) or []
            ids |= {b.block_id for b in blocks[confirmed // mgr.block_size :] if not b.is_null}
        if ids:
            self.kv.evict_blocks(ids)


class EngineAborter:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def abort(self, requests: list[Any]) -> None:
        done = self.engine.scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(done)


class FaultHandler:
    def __init__(
        self,
        engine: Any,
        selector: RequestSelector | None = None,
        evictor: Evictor | None = None,
        aborter: Aborter | None = None,
    ) -> None:
        self.engine = engine
        self.selector = selector or DecodingRequests()
        self.evictor = evictor or UnconfirmedTailEvictor(engine.scheduler.kv_cache_manager)
        self.aborter = aborter or EngineAborter(engine)

    def on_fault(self, exc: BaseException) -> None:
        running = list(self.engine.scheduler.running)
        for request in self.selector.select(running):
            self.evictor.evict_unconfirmed(request)
        self.aborter.abort(running)
