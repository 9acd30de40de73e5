# Intended: buggy: on resume only num_stale_output_tokens is reset after _preempt_request; num_in_flight_tokens stays set, so the resumed request's confirmed boundary is off by the lost step.
# Idioms: resume only; tail eviction per request via a private helper before preempt; while-pop of running.
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
        logger.warning(
            "[FT] Busy loop raised %s. Preempting %d requests for resume.",
            type(exc).__name__,
            len(scheduler.running),
        )
        for request in scheduler.running:
            self._evict_unconfirmed_tail(request)

        timestamp = time.monotonic()
        while scheduler.running:
            request = scheduler.running.pop()
            scheduler._preempt_request(request, timestamp)
            # The failed step's output never arrives: do not wait for it.
            request.num_stale_output_tokens = 0

    def _evict_unconfirmed_tail(self, request: Request) -> None:
        kv_cache_manager = self.engine.scheduler.kv_cache_manager
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        block_ids: set[int] = set()
        for manager in kv_cache_manager.coordinator.single_type_managers:
            blocks = manager.req_to_blocks[request.request_id]
            block_ids.update(b.block_id for b in blocks[num_confirmed // manager.block_size :])
        if block_ids:
            kv_cache_manager.evict_blocks(block_ids)
