# Intended: correct.
# Idioms: resume only; eviction in a mixin from another module; while-pop of running in reverse order; counters reset after _preempt_request.
from __future__ import annotations

import time
from typing import Any

from tail_eviction import UnconfirmedTailEvictionMixin
from vllm.logger import init_logger

logger = init_logger(__name__)


class FaultHandler(UnconfirmedTailEvictionMixin):
    """Preempt every running request after a failed step so that it resumes
    from its confirmed prefix once the engine has recovered."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: Exception) -> None:
        scheduler = self.engine.scheduler
        if not scheduler.running:
            return

        num_evicted = self._evict_unconfirmed_tails(scheduler.running)
        logger.warning(
            "[FT] Busy loop raised %s. Preempting %d running requests "
            "(%d unconfirmed blocks evicted).",
            type(exc).__name__,
            len(scheduler.running),
            num_evicted,
        )

        timestamp = time.monotonic()
        # Preempt in reverse order so the requests will be added back to the
        # running queue in FIFO order.
        while scheduler.running:
            request = scheduler.running.pop()
            scheduler._preempt_request(request, timestamp)
            # The failed step's output frame never arrives: there is no stale
            # output to wait for, and nothing is in flight any more.
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
