# Intended: correct.
# Thin handler over a sibling helper module (`kv_tail.evict_unconfirmed`), preempting by iterating `reversed(self.scheduler.running)` and clearing the queue afterwards, as `reset_prefix_cache` does but without dropping output.
# switch: recover_requests
from __future__ import annotations

import logging
import time

import kv_tail
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    recover_requests: bool = True

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        num = kv_tail.evict_unconfirmed(scheduler.kv_cache_manager, scheduler.running)
        logger.info("Fault: evicted %d unconfirmed KV block(s)", num)

        if not self.recover_requests:
            aborted = scheduler.finish_requests(
                [req.request_id for req in scheduler.running],
                RequestStatus.FINISHED_ABORTED,
            )
            self.engine._send_abort_outputs(aborted)
            return

        timestamp = time.monotonic()
        for request in reversed(scheduler.running):
            scheduler._preempt_request(request, timestamp, drop_stale_output=False)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
        scheduler.running.clear()
