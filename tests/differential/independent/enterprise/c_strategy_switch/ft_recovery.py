"""Recovery strategies: what happens to the running requests after the eviction."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod

from vllm.v1.request import RequestStatus


class RecoveryStrategy(ABC):
    @property
    @abstractmethod
    def name(self) -> str: ...

    @abstractmethod
    def recover(self, engine, requests) -> None: ...


class AbortRecovery(RecoveryStrategy):
    @property
    def name(self) -> str:
        return "abort"

    def recover(self, engine, requests) -> None:
        ids = [r.request_id for r in requests]
        aborted = engine.scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED)
        engine._send_abort_outputs(aborted)


class ResumeRecovery(RecoveryStrategy):
    @property
    def name(self) -> str:
        return "resume"

    def recover(self, engine, requests) -> None:
        scheduler = engine.scheduler
        now = time.monotonic()
        # Preempt newest first so the waiting queue keeps FIFO order.
        for request in reversed(requests):
            scheduler.running.remove(request)
            scheduler._preempt_request(request, now)
            # The failed step's output never arrives: nothing is in flight any more.
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
