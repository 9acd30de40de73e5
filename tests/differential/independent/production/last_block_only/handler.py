# Intended: buggy: it assumes a failed step dirties at most the last block a request holds in each group, which is true for a decode step but not for a prefill, so after a failed prefill the earlier full blocks it cached keep their hashes.
# A KVJanitor class with scheduler/kv properties, a method table keyed by a Mode enum, and early continue for requests with nothing in flight.
# switch: resume
from __future__ import annotations

import enum
import logging
import time
from typing import Any

from last_block_janitor import KVJanitor
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class Mode(enum.Enum):
    ABORT = "abort"
    RESUME = "resume"


class FaultHandler:
    resume = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    @property
    def mode(self) -> Mode:
        return Mode.RESUME if self.resume else Mode.ABORT

    def on_fault(self, exc: BaseException) -> None:
        janitor = KVJanitor(self.engine)
        for request in janitor.scheduler.running:
            if request.num_in_flight_tokens == 0:
                continue
            janitor.evict_last_written(request)
        {Mode.ABORT: self._abort, Mode.RESUME: self._resume}[self.mode](janitor)
        logger.warning(f"{exc!r}: mode={self.mode.value}, evicted={janitor.evicted}")

    def _abort(self, janitor: KVJanitor) -> None:
        aborted = janitor.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    def _resume(self, janitor: KVJanitor) -> None:
        scheduler = janitor.scheduler
        when = time.monotonic()
        while scheduler.running:
            request = scheduler.running.pop()
            scheduler._preempt_request(request, when)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
