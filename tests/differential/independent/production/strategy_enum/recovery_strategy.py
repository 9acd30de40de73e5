"""Abort or resume strategies for a faulted engine step."""
from __future__ import annotations

import enum
import itertools
import time
from typing import Any, Protocol

from vllm.v1.request import RequestStatus


class RecoveryMode(enum.Enum):
    ABORT = "abort"
    RESUME = "resume"


class RecoveryStrategy(Protocol):
    def recover(self, engine: Any) -> int: ...


def _scrub(scheduler: Any) -> None:
    kv = scheduler.kv_cache_manager
    groups = kv.coordinator.single_type_managers

    def tail(request: Any, group: Any) -> list[Any]:
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        held = group.req_to_blocks.get(request.request_id, [])
        return held[confirmed // group.block_size :]

    blocks = itertools.chain.from_iterable(tail(r, g) for r in scheduler.running for g in groups)
    ids = {b.block_id for b in blocks if not b.is_null and b.block_hash is not None}
    if ids:
        kv.evict_blocks(ids)


class _Abort:
    def recover(self, engine: Any) -> int:
        _scrub(engine.scheduler)
        aborted = engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        engine._send_abort_outputs(aborted)
        return len(aborted)


class _Resume:
    def recover(self, engine: Any) -> int:
        scheduler = engine.scheduler
        _scrub(scheduler)
        now = time.monotonic()
        requests, scheduler.running = scheduler.running, []
        for request in reversed(requests):
            scheduler._preempt_request(request, now)
            request.num_stale_output_tokens = 0
            request.num_in_flight_tokens = 0
        return len(requests)


STRATEGIES: dict[RecoveryMode, RecoveryStrategy] = {
    RecoveryMode.ABORT: _Abort(),
    RecoveryMode.RESUME: _Resume(),
}
