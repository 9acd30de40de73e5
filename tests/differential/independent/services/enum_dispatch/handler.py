# Intended: correct.
# Idioms: enum with a dispatch table of bound methods, guard clause, shared private helper.
# switch: resume
"""Fault handler with two recovery modes picked from an enum."""

from __future__ import annotations

import enum
import time

from vllm.v1.request import RequestStatus


class Recovery(enum.Enum):
    ABORT = "abort"
    RESUME = "resume"


class FaultHandler:
    resume: bool = False

    def __init__(self, engine) -> None:
        self.engine = engine
        self._dispatch = {
            Recovery.ABORT: self._abort_all,
            Recovery.RESUME: self._resume_all,
        }

    @property
    def mode(self) -> Recovery:
        return Recovery.RESUME if self.resume else Recovery.ABORT

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        if not scheduler.running and not scheduler.waiting:
            return
        self._evict_unconfirmed(scheduler)
        self._dispatch[self.mode](scheduler)

    def _evict_unconfirmed(self, scheduler) -> None:
        kv = scheduler.kv_cache_manager
        ids: set[int] = set()
        for req in scheduler.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                start = confirmed // mgr.block_size
                ids.update(blk.block_id for blk in mgr.req_to_blocks[req.request_id][start:])
        if ids:
            kv.evict_blocks(ids)

    def _abort_all(self, scheduler) -> None:
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    def _resume_all(self, scheduler) -> None:
        now = time.monotonic()
        victims = list(scheduler.running)
        scheduler.running.clear()
        for req in reversed(victims):
            scheduler._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
