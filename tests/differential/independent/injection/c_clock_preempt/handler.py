# Intended: correct.
# Idioms: Protocol interfaces for a clock, a boundary policy and a counter resetter, default
# implementations picked when None is passed, constructor injection, resume-only handler that
# zeroes the lost step's counters before handing the request to the scheduler's preemption.
"""Resume-on-fault: every running request goes back to the waiting queue."""

from __future__ import annotations

import time
from typing import Any, Protocol


class Clock(Protocol):
    def now(self) -> float: ...


class BoundaryPolicy(Protocol):
    def first_dirty_block(self, request: Any, block_size: int) -> int: ...


class CounterResetter(Protocol):
    def forget_lost_step(self, request: Any) -> None: ...


class MonotonicClock:
    def now(self) -> float:
        return time.monotonic()


class ConfirmedTokenBoundary:
    def first_dirty_block(self, request: Any, block_size: int) -> int:
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        return max(confirmed, 0) // block_size


class LostStepResetter:
    """The failed step's output never comes back: drop its accounting.

    Done before preemption, which copies num_in_flight_tokens into
    num_stale_output_tokens; with both at zero the request is schedulable at once.
    """

    def forget_lost_step(self, request: Any) -> None:
        request.num_in_flight_tokens = 0
        request.num_stale_output_tokens = 0
        request.drop_stale_output = False


class FaultHandler:
    def __init__(
        self,
        engine: Any,
        clock: Clock | None = None,
        boundary: BoundaryPolicy | None = None,
        resetter: CounterResetter | None = None,
    ) -> None:
        self.engine = engine
        self.clock = clock if clock is not None else MonotonicClock()
        self.boundary = boundary if boundary is not None else ConfirmedTokenBoundary()
        self.resetter = resetter if resetter is not None else LostStepResetter()

    def _evict_tail(self, request: Any) -> None:
        kv = self.engine.scheduler.kv_cache_manager
        stale: set[int] = set()
        for manager in kv.coordinator.single_type_managers:
            start = self.boundary.first_dirty_block(request, manager.block_size)
            stale.update(
                blk.block_id
                for blk in manager.req_to_blocks.get(request.request_id, [])[start:]
                if not blk.is_null
            )
        if stale:
            kv.evict_blocks(stale)

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        timestamp = self.clock.now()
        while scheduler.running:
            request = scheduler.running.pop()
            self._evict_tail(request)
            self.resetter.forget_lost_step(request)
            scheduler._preempt_request(request, timestamp)
