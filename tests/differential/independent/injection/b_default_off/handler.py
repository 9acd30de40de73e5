# Intended: buggy: tail eviction is behind an option that is off by default (an environment variable defaulting to "0" feeds the config), so with default settings the handler aborts every request without evicting the unconfirmed tail from the prefix cache.
# Idioms: a frozen config dataclass with a from_env factory injected into the handler, a
# Protocol evictor and releaser with default implementations, an injected logger.
"""Abort-on-fault handler driven by an injected configuration object."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Any, Protocol

from vllm.v1.request import RequestStatus


@dataclass(frozen=True)
class FaultConfig:
    evict_unconfirmed_tail: bool = False
    notify_clients: bool = True

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> "FaultConfig":
        env = os.environ if environ is None else environ
        return cls(
            evict_unconfirmed_tail=env.get("FT_EVICT_UNCONFIRMED_TAIL", "0") == "1",
            notify_clients=env.get("FT_NOTIFY_CLIENTS", "1") == "1",
        )


class Evictor(Protocol):
    def evict_tail(self, request: Any) -> None: ...


class Releaser(Protocol):
    def abort(self, requests: list[Any]) -> list[Any]: ...


class GroupTailEvictor:
    def __init__(self, kv_cache_manager: Any) -> None:
        self.kv = kv_cache_manager

    def evict_tail(self, request: Any) -> None:
        confirmed = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
        ids = {
            b.block_id
            for m in self.kv.coordinator.single_type_managers
            for b in (m.req_to_blocks.get(request.request_id) or [])[confirmed // m.block_size :]
            if not b.is_null
        }
        if ids:
            self.kv.evict_blocks(ids)


class SchedulerReleaser:
    def __init__(self, scheduler: Any) -> None:
        self.scheduler = scheduler

    def abort(self, requests: list[Any]) -> list[Any]:
        return self.scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)


class FaultHandler:
    def __init__(
        self,
        engine: Any,
        config: FaultConfig | None = None,
        evictor: Evictor | None = None,
        releaser: Releaser | None = None,
        logger: logging.Logger | None = None,
    ) -> None:
        self.engine = engine
        self.config = config or FaultConfig.from_env()
        self.evictor = evictor or GroupTailEvictor(engine.scheduler.kv_cache_manager)
        self.releaser = releaser or SchedulerReleaser(engine.scheduler)
        self.logger = logger or logging.getLogger(__name__)

    def on_fault(self, exc: BaseException) -> None:
        requests = list(self.engine.scheduler.running)
        if self.config.evict_unconfirmed_tail:
            for request in requests:
                self.evictor.evict_tail(request)
        aborted = self.releaser.abort(requests)
        if self.config.notify_clients:
            self.engine._send_abort_outputs(aborted)
        self.logger.warning("fault %s: aborted %d requests", exc, len(aborted))
