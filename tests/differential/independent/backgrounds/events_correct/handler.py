# Intended: correct. A small signal bus runs the fault listeners in order: evict every running request's unconfirmed tail (all KV-cache groups), then abort everything.
# Idioms: event system: Signal class with connect/emit, listeners registered in a list in priority order, callbacks closing over the engine.
from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable

from vllm.v1.request import RequestStatus

Listener = Callable[[dict[str, Any]], None]


class Signal:
    def __init__(self, name: str) -> None:
        self.name = name
        self._listeners: list[tuple[int, Listener]] = []

    def connect(self, listener: Listener, priority: int = 100) -> None:
        self._listeners.append((priority, listener))
        self._listeners.sort(key=lambda pl: pl[0])

    def emit(self, payload: dict[str, Any]) -> None:
        for _, listener in self._listeners:
            listener(payload)


def make_tail_evictor(engine) -> Listener:
    def on_fault(payload: dict[str, Any]) -> None:
        sched = engine.scheduler
        kv = sched.kv_cache_manager
        evicted: set[int] = set()
        for req in sched.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for m in kv.coordinator.single_type_managers:
                blocks = m.req_to_blocks.get(req.request_id, [])
                evicted.update(b.block_id for b in blocks[confirmed // m.block_size:])
        if evicted:
            kv.evict_blocks(evicted)
        payload["evicted"] = evicted

    return on_fault


def make_aborter(engine) -> Listener:
    def on_fault(payload: dict[str, Any]) -> None:
        aborted = engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        engine._send_abort_outputs(aborted)
        payload["aborted"] = [r.request_id for r in aborted]

    return on_fault


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine
        self.signals: dict[str, Signal] = defaultdict(lambda: Signal("?"))
        self.signals["fault"] = Signal("fault")
        self.signals["fault"].connect(make_tail_evictor(engine), priority=10)
        self.signals["fault"].connect(make_aborter(engine), priority=50)
        self.history: list[dict[str, Any]] = []

    def on_fault(self, exc: BaseException) -> None:
        payload: dict[str, Any] = {"exc": exc}
        self.signals["fault"].emit(payload)
        self.history.append(payload)
