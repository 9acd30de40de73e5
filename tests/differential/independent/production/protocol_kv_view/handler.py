# Intended: correct.
# The handler talks to the KV cache through a KVView wrapper typed by Protocol classes (kv_view.py); the resume path passes drop_stale_output=False explicitly and then clears the lost step's counters.
# switch: keep_alive
from __future__ import annotations

import logging
import time
from typing import Any

from kv_view import KVView
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    keep_alive: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    @property
    def scheduler(self) -> Any:
        return self.engine.scheduler

    @property
    def view(self) -> KVView:
        return KVView(self.scheduler.kv_cache_manager)

    def on_fault(self, exc: BaseException) -> None:
        view = self.view
        faulted = list(self.scheduler.running)
        for request in faulted:
            view.forget(view.unconfirmed(request))
        if self.keep_alive:
            self._requeue(faulted)
        else:
            self.engine._send_abort_outputs(
                self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            )
        logger.warning(f"{exc!r}: {'requeued' if self.keep_alive else 'aborted'} {len(faulted)} requests")

    def _requeue(self, faulted: list[Any]) -> None:
        now = time.monotonic()
        self.scheduler.running = [r for r in self.scheduler.running if r not in faulted]
        for request in reversed(faulted):
            # The lost frame will never arrive: there is nothing to drop.
            self.scheduler._preempt_request(request, now, drop_stale_output=False)
            request.num_stale_output_tokens = 0
            request.num_in_flight_tokens = 0
