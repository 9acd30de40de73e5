# Intended: buggy: the cleanup pipeline clears num_in_flight_tokens before the eviction step computes the confirmed boundary, so the boundary becomes num_computed_tokens, the evicted range is empty, and the blocks the failed step cached stay in the prefix cache.
# Resume-only: a pipeline of per-request cleanup callables (requeue_pipeline.py) run in list order, each typed by a Protocol, over a RequeueContext dataclass.
from __future__ import annotations

import logging
import time
from typing import Any

from requeue_pipeline import PIPELINE, RequeueContext

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        ctx = RequeueContext(scheduler, scheduler.kv_cache_manager, time.monotonic())
        batch = list(scheduler.running)
        for request in reversed(batch):
            for stage in PIPELINE:
                stage(ctx, request)
        logger.warning(f"{exc!r}: {len(batch)} requests requeued, {ctx.evicted} blocks evicted")
