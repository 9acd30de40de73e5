# Intended: correct.
# Idioms: enum.StrEnum recovery mode matched exhaustively with typing.assert_never, Protocol-typed pure helper module, generator yielding block ids, positional-only and keyword-only parameters.
# switch: resume_on_fault
"""Evict the unconfirmed tail, then abort or preempt according to the recovery mode."""

from __future__ import annotations

import time
from typing import assert_never

from vllm.v1.request import RequestStatus

from kv_tail import confirmed_tokens, tail_ids
from recovery_modes import RecoveryMode


class FaultHandler:
    resume_on_fault: bool = False

    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def mode(self) -> RecoveryMode:
        return RecoveryMode.from_flag(self.resume_on_fault)

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        victims = list(scheduler.running)

        dirty = {
            block_id
            for req in victims
            for block_id in tail_ids(
                managers,
                req.request_id,
                confirmed=confirmed_tokens(computed=req.num_computed_tokens, in_flight=req.num_in_flight_tokens),
            )
        }
        kv.evict_blocks(dirty)

        match self.mode:
            case RecoveryMode.ABORT:
                aborted = scheduler.finish_requests(
                    [req.request_id for req in victims], RequestStatus.FINISHED_ABORTED
                )
                self.engine._send_abort_outputs(aborted)
            case RecoveryMode.RESUME:
                stamp = time.monotonic()
                while scheduler.running:
                    req = scheduler.running.pop()
                    scheduler._preempt_request(req, stamp)
                    req.num_in_flight_tokens = req.num_stale_output_tokens = 0
            case unreachable:
                assert_never(unreachable)
