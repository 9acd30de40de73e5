from __future__ import annotations

import time
from abc import ABC, abstractmethod

from vllm.v1.request import RequestStatus


class ReleaseStep(ABC):
    @abstractmethod
    def release(self, engine, requests) -> None: ...


class AbortRelease(ReleaseStep):
    def release(self, engine, requests) -> None:
        out = engine.scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
        engine._send_abort_outputs(out)


class PreemptRelease(ReleaseStep):
    def release(self, engine, requests) -> None:
        scheduler = engine.scheduler
        t = time.monotonic()
        for r in reversed(requests):
            scheduler.running.remove(r)
            r.num_in_flight_tokens = 0
            scheduler._preempt_request(r, t)


class ReleaseStepFactory:
    def create(self, resume: bool) -> ReleaseStep:
        return PreemptRelease() if resume else AbortRelease()
