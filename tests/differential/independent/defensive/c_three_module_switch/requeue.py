"""Put running requests back in the waiting queue with no leftover step state."""

from __future__ import annotations

import logging
import time

logger = logging.getLogger(__name__)


def requeue_all(scheduler) -> int:
    moved = 0
    ts = time.monotonic()
    while scheduler.running:
        request = scheduler.running.pop()
        scheduler._preempt_request(request, ts)
        request.num_stale_output_tokens = 0
        request.num_in_flight_tokens = 0
        moved += 1
    logger.info("requeued %s requests", moved)
    return moved
