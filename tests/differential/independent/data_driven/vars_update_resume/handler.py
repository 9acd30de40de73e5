# Intended: correct.
# Resumes every running request: records its unconfirmed tail first, zeroes the in-flight counters through vars(request).update before the preempt (so the preempt copies a zero into the stale counter), and evicts the recorded tail blocks per group before any block is freed.
from __future__ import annotations

import time
from typing import Any, Final, NamedTuple

IN_FLIGHT: Final = "num_in_flight_tokens"
STALE: Final = "num_stale_output_tokens"


class DirtySpan(NamedTuple):
    request_id: str
    first_block: int
    group: int


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        if not scheduler.running:
            return
        kv = scheduler.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        spans = [
            DirtySpan(req.request_id, (req.num_computed_tokens - req.num_in_flight_tokens) // mgr.block_size, group)
            for req in scheduler.running
            for group, mgr in enumerate(managers)
        ]
        kv.evict_blocks(
            {
                block.block_id
                for span in spans
                for block in managers[span.group].req_to_blocks.get(span.request_id, [])[span.first_block :]
                if block.block_hash is not None
            }
        )
        requests, scheduler.running = list(scheduler.running), []
        now = time.monotonic()
        for req in requests[::-1]:
            vars(req).update({IN_FLIGHT: 0, STALE: 0})
            scheduler._preempt_request(req, now)
