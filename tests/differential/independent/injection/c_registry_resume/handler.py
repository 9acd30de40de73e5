# Intended: correct.
# Idioms: a small service locator (registry of named factories) that wires the handler,
# default services registered at construction and overridable with provide(), an injected
# clock for preemption timestamps, collaborators resolved by name instead of constructed inline.
# switch: RESUME
"""Fault handler whose collaborators come from a service registry."""

from __future__ import annotations

import logging
import time
from typing import Any

from vllm.v1.request import RequestStatus

from ft_services import ServiceRegistry


def _tail_block_ids(kv_cache_manager: Any, request: Any) -> set[int]:
    """Block ids holding tokens the failed step scheduled but never confirmed."""
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    confirmed = confirmed if confirmed > 0 else 0
    ids: set[int] = set()
    for mgr in kv_cache_manager.coordinator.single_type_managers:
        held = mgr.req_to_blocks.get(request.request_id, ())
        for block in held[confirmed // mgr.block_size :]:
            if block.is_null:
                continue
            ids.add(block.block_id)
    return ids


class _Evictor:
    def __init__(self, kv_cache_manager: Any) -> None:
        self.kv = kv_cache_manager

    def __call__(self, request: Any) -> None:
        ids = _tail_block_ids(self.kv, request)
        if ids:
            self.kv.evict_blocks(ids)


class _Aborter:
    def __init__(self, scheduler: Any, engine: Any) -> None:
        self.scheduler, self.engine = scheduler, engine

    def __call__(self, requests: list[Any]) -> None:
        aborted = self.scheduler.finish_requests(
            [r.request_id for r in requests], RequestStatus.FINISHED_ABORTED
        )
        send = getattr(self.engine, "_send_abort_outputs", None)
        if send is not None:
            send(aborted)


class _Requeuer:
    """Puts running requests back in the waiting queue, ready to be rescheduled."""

    def __init__(self, scheduler: Any, clock: Any) -> None:
        self.scheduler, self.clock = scheduler, clock

    def __call__(self, requests: list[Any]) -> None:
        now = self.clock()
        for request in requests:
            self.scheduler.running.remove(request)
            self.scheduler._preempt_request(request, now)
            # The lost step's output will never arrive: nothing is in flight
            # and there is no stale output to wait for.
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0


def default_registry(engine: Any) -> ServiceRegistry:
    registry = ServiceRegistry(engine=engine, scheduler=engine.scheduler)
    registry.register("clock", lambda r: time.monotonic)
    registry.register("logger", lambda r: logging.getLogger("ft.fault_handler"))
    registry.register("evictor", lambda r: _Evictor(r.resolve("scheduler").kv_cache_manager))
    registry.register("aborter", lambda r: _Aborter(r.resolve("scheduler"), r.resolve("engine")))
    registry.register("requeuer", lambda r: _Requeuer(r.resolve("scheduler"), r.resolve("clock")))
    return registry


class FaultHandler:
    RESUME = False

    def __init__(self, engine: Any, registry: ServiceRegistry | None = None) -> None:
        self.engine = engine
        self.services = registry if registry is not None else default_registry(engine)

    def on_fault(self, exc: BaseException) -> None:
        log = self.services.resolve("logger")
        scheduler = self.services.resolve("scheduler")
        victims = list(scheduler.running)
        evict = self.services.resolve("evictor")
        for request in victims:
            evict(request)
        release = self.services.resolve("requeuer" if self.RESUME else "aborter")
        release(victims)
        log.warning("fault %r: %s %d requests", exc, "requeued" if self.RESUME else "aborted", len(victims))
