# Intended: correct.
# Template-method inheritance: `base.TailEvictingHandler.on_fault` evicts the tail of every running request, the subclass only overrides the `_recover` hook to preempt and reset the in-flight counters.
from __future__ import annotations

import time

from base import TailEvictingHandler
from vllm.v1.request import Request, RequestStatus


class FaultHandler(TailEvictingHandler):
    def _recover(self, requests: list[Request], exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        timestamp = time.monotonic()
        for request in reversed(requests):
            if request.status != RequestStatus.RUNNING:
                continue
            scheduler.running.remove(request)
            scheduler._preempt_request(request, timestamp)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
