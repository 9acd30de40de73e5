from __future__ import annotations

import time
from abc import ABC, abstractmethod

from vllm.v1.request import RequestStatus


class ReleaseService(ABC):
    @abstractmethod
    def release(self, engine, requests) -> None: ...


class AbortService(ReleaseService):
    def release(self, engine, requests) -> None:
        aborted = engine.scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
        engine._send_abort_outputs(aborted)


class RequeueService(ReleaseService):
    def release(self, engine, requests) -> None:
        sched = engine.scheduler
        stamp = time.monotonic()
        for req in reversed(requests):
            sched.running.remove(req)
            sched._preempt_request(req, stamp)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
