# Intended: correct.
# Idioms: a decorator-populated strategy registry for releasing requests, an injected block
# pool (the evictor talks to BlockPool directly), an injected clock and logger, Protocol for the
# pool, defaults resolved when None is passed.
# switch: PREEMPT_INSTEAD_OF_ABORT
"""Fault handler that evicts through an injected BlockPool and releases by strategy name."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

import release_strategies


class EvictingPool(Protocol):
    def evict_blocks(self, block_ids: set[int]) -> None: ...


class TailScrubber:
    """Drops the prefix-cache hashes of blocks past the confirmed boundary."""

    def __init__(self, pool: EvictingPool, groups: Iterable[Any]) -> None:
        self.pool = pool
        self.groups = tuple(groups)

    def scrub(self, request: Any) -> None:
        boundary = request.num_computed_tokens - request.num_in_flight_tokens
        if boundary < 0:
            boundary = 0
        ids = set()
        for g in self.groups:
            blocks = g.req_to_blocks.get(request.request_id) or ()
            for i in range(boundary // g.block_size, len(blocks)):
                if not blocks[i].is_null:
                    ids.add(blocks[i].block_id)
        self.pool.evict_blocks(ids)


class FaultHandler:
    PREEMPT_INSTEAD_OF_ABORT = False

    def __init__(
        self,
        engine: Any,
        pool: EvictingPool | None = None,
        clock: Callable[[], float] | None = None,
        logger: logging.Logger | None = None,
        strategies: dict[str, release_strategies.ReleaseStrategy] | None = None,
    ) -> None:
        self.engine = engine
        kv = engine.scheduler.kv_cache_manager
        self.scrubber = TailScrubber(pool or kv.block_pool, kv.coordinator.single_type_managers)
        self.clock = clock or time.monotonic
        self.logger = logger or logging.getLogger(__name__)
        self.strategies = strategies if strategies is not None else release_strategies.STRATEGIES

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        requests = list(scheduler.running)
        for request in requests:
            self.scrubber.scrub(request)
        name = "requeue" if self.PREEMPT_INSTEAD_OF_ABORT else "abort"
        aborted = self.strategies[name](scheduler, requests, self.clock())
        if aborted:
            self.engine._send_abort_outputs(aborted)
        self.logger.warning("fault %s handled by %s of %d requests", type(exc).__name__, name, len(requests))
