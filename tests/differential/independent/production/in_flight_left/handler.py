# Intended: buggy: after preempting it clears num_stale_output_tokens but leaves num_in_flight_tokens at the lost step's count, so the requeued request's confirmed boundary (num_computed_tokens - num_in_flight_tokens) is off by that step from then on.
# Resume-only handler built on a for_each_request(fn) visitor over a Protocol-typed request, with a TailRange dataclass describing the dirty range.
from __future__ import annotations

import logging
import time
from typing import Any

from resume_support import TailRange, for_each_request

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    @property
    def scheduler(self) -> Any:
        return self.engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        kv = self.scheduler.kv_cache_manager
        groups = kv.coordinator.single_type_managers
        stamp = time.monotonic()

        def requeue(request: Any) -> None:
            tail = TailRange.of(request)
            ids = tail.block_ids(groups)
            if ids:
                kv.evict_blocks(ids)
            self.scheduler._preempt_request(request, stamp)
            # The lost step's frame will never arrive: do not wait for it.
            request.num_stale_output_tokens = 0

        n = for_each_request(self.scheduler, requeue)
        logger.warning(f"{type(exc).__name__} during step: {n} requests requeued")
