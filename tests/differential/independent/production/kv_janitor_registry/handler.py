# Intended: correct.
# A KVJanitor runs a registry of per-request cleanup steps (a list of callables) in order; the abort/resume switch only decides which steps follow the tail eviction.
# switch: resume_on_fault
from __future__ import annotations

import logging
import time
from functools import partial

from kv_janitor import CleanupStep, KVJanitor
from vllm.v1.request import Request, RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    resume_on_fault: bool = False

    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    # -- steps -------------------------------------------------------------

    def _requeue(self, request: Request, *, timestamp: float) -> None:
        self.scheduler.running.remove(request)
        self.scheduler._preempt_request(request, timestamp)

    @staticmethod
    def _forget_lost_step(request: Request) -> None:
        # The lost step's output never arrives: nothing is in flight, nothing is stale.
        request.num_in_flight_tokens = 0
        request.num_stale_output_tokens = 0

    def _steps(self, janitor: KVJanitor) -> list[CleanupStep]:
        steps: list[CleanupStep] = [janitor.evict_unconfirmed_tail]
        if self.resume_on_fault:
            steps += [partial(self._requeue, timestamp=time.monotonic()), self._forget_lost_step]
        return steps

    def on_fault(self, exc: BaseException) -> None:
        janitor = KVJanitor(self.scheduler.kv_cache_manager)
        victims = list(self.scheduler.running)
        # Preempted requests are prepended to waiting: walk backwards to keep FIFO order.
        janitor.sweep(reversed(victims), self._steps(janitor))
        if self.resume_on_fault:
            logger.warning(f"fault {exc!r}: {len(victims)} requests requeued")
            return
        aborted = self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        logger.warning(f"fault {exc!r}: {len(aborted)} requests aborted")
