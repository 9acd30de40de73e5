# Intended: correct.
# Resumes every running request in reverse order, evicting each one's tail (frozen Tail dataclasses from a helper module, divmod for the boundary) right before its own preempt, then resetting both in-flight counters through setattr over a Final tuple of field names.
from __future__ import annotations

import time
from typing import Any, Final

import tails

COUNTERS: Final[tuple[str, ...]] = ("num_in_flight_tokens", "num_stale_output_tokens")


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        if not scheduler.running:
            return
        kv = scheduler.kv_cache_manager
        managers = list(kv.coordinator.single_type_managers)
        now = time.monotonic()
        for req in reversed(list(scheduler.running)):
            ids = tails.tail_ids(tails.tails_of(req, managers), managers)
            if ids:
                kv.evict_blocks(ids)
            scheduler.running.remove(req)
            scheduler._preempt_request(req, now)
            for name in COUNTERS:
                setattr(req, name, 0)
