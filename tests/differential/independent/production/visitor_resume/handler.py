# Intended: correct.
# A generic for_each_request(fn) visitor (request_visitor.py, with a Protocol for the request fields it needs) pops each running request and hands it to a resume callback that evicts the tail, clears num_in_flight_tokens and then preempts.
from __future__ import annotations

import logging
import time

from request_visitor import FaultedRequest, for_each_request

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        now = time.monotonic()
        kv = self.scheduler.kv_cache_manager

        def resume(request: FaultedRequest) -> None:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            stale: set[int] = set()
            for group in kv.coordinator.single_type_managers:
                owned = group.req_to_blocks.get(request.request_id, ())
                stale.update(b.block_id for b in owned[confirmed // group.block_size :] if not b.is_null)
            if stale:
                kv.evict_blocks(stale)
            # Cleared before the preempt: _preempt_request copies it into
            # num_stale_output_tokens, which therefore ends up 0 as well.
            request.num_in_flight_tokens = 0
            self.scheduler._preempt_request(request, now)

        count = for_each_request(self.scheduler, resume)
        logger.warning(f"{type(exc).__name__}: resumed {count} requests from their confirmed prefix")
