# Intended: buggy: the resume path preempts with drop_stale_output=True (copied from reset_prefix_cache), which marks the lost step's in-flight tokens as output to drop; that frame never arrives, so the first good frame after the resume is dropped.
# An enum-selected strategy object (RecoveryKind -> handler method table) with a KVJanitor helper class that evicts the tail of every group before either path.
# switch: resume_after_fault
from __future__ import annotations

import enum
import logging
import time
from collections.abc import Callable
from typing import Any

from kv_janitor import KVJanitor
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class RecoveryKind(enum.Enum):
    ABORT = enum.auto()
    RESUME = enum.auto()


class FaultHandler:
    resume_after_fault = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self._table: dict[RecoveryKind, Callable[[list[Any]], None]] = {
            RecoveryKind.ABORT: self._abort,
            RecoveryKind.RESUME: self._resume,
        }

    @property
    def scheduler(self) -> Any:
        return self.engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        kind = RecoveryKind.RESUME if self.resume_after_fault else RecoveryKind.ABORT
        faulted = list(self.scheduler.running)
        KVJanitor(self.scheduler.kv_cache_manager).evict_unconfirmed(faulted)
        logger.warning(f"{exc!r}: {kind.name.lower()} {len(faulted)} requests")
        self._table[kind](faulted)

    def _abort(self, faulted: list[Any]) -> None:
        self.engine._send_abort_outputs(self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED))

    def _resume(self, faulted: list[Any]) -> None:
        timestamp = time.monotonic()
        self.scheduler.running = []
        for request in reversed(faulted):
            # Same as reset_prefix_cache(reset_running_requests=True): whatever
            # was in flight for this request is stale and must not be delivered.
            self.scheduler._preempt_request(request, timestamp, drop_stale_output=True)
            request.num_in_flight_tokens = 0
