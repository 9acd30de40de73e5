# Intended: correct.
# Idioms: resume only; per-request evict-then-preempt inside one loop over a swapped-out running list; num_in_flight_tokens zeroed before _preempt_request (so no stale output is carried over); static helper for the boundary.
from __future__ import annotations

import time
from typing import Any

from vllm.logger import init_logger
from vllm.v1.request import Request

logger = init_logger(__name__)


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: Exception) -> None:
        scheduler = self.engine.scheduler
        running, scheduler.running = scheduler.running, []
        if not running:
            return

        logger.warning(
            "[FT] Busy loop raised %s. Preempting %d requests for resume.",
            type(exc).__name__,
            len(running),
        )
        timestamp = time.monotonic()
        for request in reversed(running):
            self._evict_unconfirmed_tail(request)
            # Nothing of the failed step will come back. With no tokens in
            # flight, _preempt_request leaves no stale output to wait for.
            request.num_in_flight_tokens = 0
            scheduler._preempt_request(request, timestamp)

    @staticmethod
    def _first_unconfirmed_block(request: Request, block_size: int) -> int:
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        return num_confirmed // block_size

    def _evict_unconfirmed_tail(self, request: Request) -> None:
        kv_cache_manager = self.engine.scheduler.kv_cache_manager
        block_ids: set[int] = set()
        for manager in kv_cache_manager.coordinator.single_type_managers:
            start = self._first_unconfirmed_block(request, manager.block_size)
            block_ids.update(
                block.block_id
                for block in manager.req_to_blocks[request.request_id][start:]
            )
        if not block_ids:
            return
        kv_cache_manager.evict_blocks(block_ids)
