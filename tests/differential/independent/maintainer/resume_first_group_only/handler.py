# Intended: buggy: only the first KV-cache group's tail is evicted (get_block_ids(...)[0] with the scheduler's block_size); the sliding-window group keeps its dirty blocks cached.
# Idioms: resume only; get_block_ids; scheduler.block_size; running swapped out then preempted in reverse; counters reset after preempt.
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
        if not scheduler.running:
            return
        logger.warning(
            "[FT] Busy loop raised %s. Preempting running requests.",
            type(exc).__name__,
        )

        to_evict: set[int] = set()
        for request in scheduler.running:
            to_evict.update(self._tail_block_ids(request))
        if to_evict:
            scheduler.kv_cache_manager.evict_blocks(to_evict)

        running, scheduler.running = scheduler.running, []
        timestamp = time.monotonic()
        for request in reversed(running):
            scheduler._preempt_request(request, timestamp)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0

    def _tail_block_ids(self, request: Request) -> list[int]:
        scheduler = self.engine.scheduler
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        block_ids = scheduler.kv_cache_manager.get_block_ids(request.request_id)[0]
        return block_ids[num_confirmed // scheduler.block_size :]
