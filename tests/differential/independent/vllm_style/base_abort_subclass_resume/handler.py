# Intended: correct.
# Subclass of a sibling `base.BaseFaultHandler`: the abort path is `super().on_fault(exc)`, the resume path reuses the inherited `_evict_dirty_tail` per request before `_preempt_request`.
# switch: resume_on_fault
from __future__ import annotations

import base


class FaultHandler(base.BaseFaultHandler):
    resume_on_fault = False

    def on_fault(self, exc: BaseException) -> None:
        if not self.resume_on_fault:
            super().on_fault(exc)
            return
        scheduler = self.scheduler
        timestamp = self._timestamp()
        while scheduler.running:
            request = scheduler.running.pop()
            self._evict_dirty_tail(request)
            scheduler._preempt_request(request, timestamp)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
