# Intended: buggy: eviction runs as an "aborted" listener, after finish_requests freed the requests, so req_to_blocks is already empty and no tail block is evicted.
# Idioms: event system: observer registry keyed by event name, emit chain (fault -> aborted), listeners as bound methods.
from __future__ import annotations

from typing import Any, Callable

from vllm.v1.request import RequestStatus


class EventHub:
    def __init__(self) -> None:
        self._observers: dict[str, list[Callable[..., None]]] = {}

    def subscribe(self, event: str, fn: Callable[..., None]) -> None:
        self._observers.setdefault(event, []).append(fn)

    def publish(self, event: str, **data: Any) -> None:
        for fn in list(self._observers.get(event, ())):
            fn(**data)


class AbortObserver:
    def __init__(self, engine, hub: EventHub) -> None:
        self.engine = engine
        self.hub = hub

    def handle_fault(self, exc: BaseException) -> None:
        aborted = self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        self.hub.publish("aborted", requests=aborted)


class TailEvictionObserver:
    def __init__(self, engine) -> None:
        self.engine = engine

    def handle_aborted(self, requests: list[Any]) -> None:
        kv = self.engine.scheduler.kv_cache_manager
        ids: set[int] = set()
        for req in requests:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                blocks = mgr.req_to_blocks.get(req.request_id, [])
                ids.update(b.block_id for b in blocks[confirmed // mgr.block_size:])
        if ids:
            kv.evict_blocks(ids)


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine
        self.hub = EventHub()
        self.hub.subscribe("fault", AbortObserver(engine, self.hub).handle_fault)
        self.hub.subscribe("aborted", TailEvictionObserver(engine).handle_aborted)

    def on_fault(self, exc: BaseException) -> None:
        self.hub.publish("fault", exc=exc)
