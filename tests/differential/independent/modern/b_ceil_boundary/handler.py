# Intended: buggy: the tail starts at the ceiling of confirmed / block_size, so the block that holds the confirmed boundary (partly confirmed, partly written by the lost step, and hashed once the step filled it) stays in the prefix cache.
# Idioms: pure math helper module with positional-only and keyword-only parameters, typing.Final, match on a (request id, boundary) tuple with guards, walrus, StrEnum mode.
# switch: RESUME_ON_FAULT
"""Evict blocks past the confirmed boundary, then abort or resume."""

from __future__ import annotations

import time
from enum import StrEnum
from typing import Any, assert_never

from vllm.v1.request import RequestStatus

from blockmath import confirmed_boundary, first_unconfirmed_block


class Mode(StrEnum):
    ABORT = "abort"
    RESUME = "resume"


class FaultHandler:
    RESUME_ON_FAULT: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        requests = list(sched.running)
        doomed: set[int] = set()
        for req in requests:
            match (req.request_id, confirmed_boundary(computed=req.num_computed_tokens, in_flight=req.num_in_flight_tokens)):
                case (_, confirmed) if confirmed >= req.num_computed_tokens:
                    continue
                case (rid, confirmed):
                    for mgr in managers:
                        start = first_unconfirmed_block(confirmed, block_size=mgr.block_size)
                        doomed.update(b.block_id for b in mgr.req_to_blocks.get(rid, [])[start:] if not b.is_null)
        if doomed:
            kv.evict_blocks(doomed)

        match Mode.RESUME if self.RESUME_ON_FAULT else Mode.ABORT:
            case Mode.ABORT:
                if aborted := sched.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED):
                    self.engine._send_abort_outputs(aborted)
            case Mode.RESUME:
                ts = time.monotonic()
                for req in reversed(requests):
                    sched.running.remove(req)
                    sched._preempt_request(req, ts)
                    req.num_in_flight_tokens = req.num_stale_output_tokens = 0
            case never:
                assert_never(never)
