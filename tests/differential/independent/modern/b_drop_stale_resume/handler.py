# Intended: buggy: on resume it preempts with drop_stale_output=True and leaves num_stale_output_tokens set, but the failed step's output frame never arrives, so the first good frame after the resume is the one dropped.
# Idioms: Protocol-typed requeue helper module with keyword-only timestamp, StrEnum path selector matched with assert_never, set comprehension across KV-cache groups.
# switch: resume_mode
"""Evict the unconfirmed tail, then abort or requeue every running request."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, assert_never

from vllm.v1.request import RequestStatus

from requeue import requeue


class Path(StrEnum):
    ABORT = "abort"
    RESUME = "resume"


class FaultHandler:
    resume_mode: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        running = list(sched.running)
        kv.evict_blocks(
            {
                blk.block_id
                for req in running
                for mgr in kv.coordinator.single_type_managers
                for blk in mgr.req_to_blocks.get(req.request_id, [])[
                    max(0, req.num_computed_tokens - req.num_in_flight_tokens) // mgr.block_size :
                ]
                if not blk.is_null
            }
        )
        match Path.RESUME if self.resume_mode else Path.ABORT:
            case Path.ABORT:
                self.engine._send_abort_outputs(
                    sched.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
                )
            case Path.RESUME:
                requeue(sched, running)
            case unknown:
                assert_never(unknown)
