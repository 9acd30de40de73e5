# Intended: buggy: on resume the subclass preempts every running request first and only then calls the inherited `_evict_all_dirty()`, which walks `scheduler.running` (now empty) and evicts nothing, so the unconfirmed tail stays cached.
# Subclass of a sibling `base.BaseFaultHandler`; abort path is `super().on_fault(exc)`, resume path reuses the base's eviction helper.
# switch: resume_requests
from __future__ import annotations

import time

from base import BaseFaultHandler


class FaultHandler(BaseFaultHandler):
    def __init__(self, engine):
        super().__init__(engine)
        self.resume_requests = False

    def _preempt_all(self) -> None:
        scheduler = self.scheduler
        timestamp = time.monotonic()
        while scheduler.running:
            request = scheduler.running.pop()
            scheduler._preempt_request(request, timestamp)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0

    def on_fault(self, exc: BaseException) -> None:
        if not self.resume_requests:
            return super().on_fault(exc)
        # Stop the requests first so nothing reschedules them mid-cleanup,
        # then drop whatever the failed step left in the prefix cache.
        self._preempt_all()
        self._evict_all_dirty()
