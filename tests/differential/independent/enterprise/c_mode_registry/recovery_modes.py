from __future__ import annotations

import time
from abc import ABC, abstractmethod

from vllm.v1.request import RequestStatus

from mode_registry import ModeKey, recovery_mode


class RecoveryModeBase(ABC):
    def __init__(self, quarantine) -> None:
        self._quarantine = quarantine

    def run(self, engine) -> None:
        scheduler = engine.scheduler
        requests = list(scheduler.running)
        self._quarantine.quarantine(scheduler, requests)
        self.release(engine, requests)

    @abstractmethod
    def release(self, engine, requests) -> None: ...


@recovery_mode(ModeKey.ABORT)
class AbortMode(RecoveryModeBase):
    def release(self, engine, requests) -> None:
        finished = engine.scheduler.finish_requests(
            [r.request_id for r in requests], RequestStatus.FINISHED_ABORTED
        )
        engine._send_abort_outputs(finished)


@recovery_mode(ModeKey.RESUME)
class ResumeMode(RecoveryModeBase):
    def release(self, engine, requests) -> None:
        scheduler = engine.scheduler
        stamp = time.monotonic()
        for request in reversed(requests):
            scheduler.running.remove(request)
            scheduler._preempt_request(request, stamp)
            request.num_stale_output_tokens = 0
            request.num_in_flight_tokens = 0
