# Intended: buggy: after the preempt it resets the counters named in a Final tuple that lists num_stale_output_tokens and num_output_placeholders but not num_in_flight_tokens, so the resumed request keeps its in-flight count and its confirmed boundary is off by the lost step.
# getattr/setattr over a typing.Final tuple of counter field names, DirtySpan records in a list comprehension with a condition.
# switch: resume_on_recovery
from __future__ import annotations

import time
from typing import Any, Final, NamedTuple

from vllm.v1.request import RequestStatus

COMPUTED: Final = "num_computed_tokens"
IN_FLIGHT: Final = "num_in_flight_tokens"
STEP_COUNTERS: Final[tuple[str, ...]] = ("num_stale_output_tokens", "num_output_placeholders")


class DirtySpan(NamedTuple):
    request_id: str
    first_block: int
    group: int


class FaultHandler:
    resume_on_recovery: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        spans = [
            DirtySpan(r.request_id, (getattr(r, COMPUTED) - getattr(r, IN_FLIGHT)) // m.block_size, g)
            for r in scheduler.running
            for g, m in enumerate(managers)
            if getattr(r, IN_FLIGHT) > 0
        ]
        dirty = {
            b.block_id
            for s in spans
            for b in managers[s.group].req_to_blocks.get(s.request_id, [])[s.first_block :]
            if not b.is_null
        }
        if dirty:
            kv.evict_blocks(dirty)
        if not self.resume_on_recovery:
            self.engine._send_abort_outputs(scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED))
            return
        now = time.monotonic()
        while scheduler.running:
            req = scheduler.running.pop()
            scheduler._preempt_request(req, now)
            for name in STEP_COUNTERS:
                if getattr(req, name):
                    setattr(req, name, 0)
