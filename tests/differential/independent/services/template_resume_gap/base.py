"""Template-method base for fault recovery."""

from __future__ import annotations

import abc
import time

from vllm.v1.request import RequestStatus


class RecoveryBase(abc.ABC):
    resume = False

    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        if self.resume:
            self.preempt_all()
        else:
            self.before_abort()
            self.abort_all()

    @abc.abstractmethod
    def before_abort(self) -> None:
        """Subclasses clean up scheduler state the abort would otherwise expose."""

    def abort_all(self) -> None:
        aborted = self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    def preempt_all(self) -> None:
        now = time.monotonic()
        running = list(self.scheduler.running)
        self.scheduler.running.clear()
        for req in running:
            self.scheduler._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
