# Intended: buggy: the DirtySpan records are computed before the preempt, but their block ids are read from req_to_blocks only after _preempt_request has freed the request and popped its entry, so nothing is evicted and the dirty tail stays hashed in the prefix cache.
# Resumes every request; DirtySpan NamedTuples in a dict keyed by request id, resolved to block ids with a set comprehension after the preempt loop.
from __future__ import annotations

import time
from typing import Any, NamedTuple


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
        spans: dict[str, list[DirtySpan]] = {
            req.request_id: [
                DirtySpan(req.request_id, (req.num_computed_tokens - req.num_in_flight_tokens) // m.block_size, g)
                for g, m in enumerate(managers)
            ]
            for req in scheduler.running
        }
        now = time.monotonic()
        victims, scheduler.running = scheduler.running, []
        for req in reversed(victims):
            scheduler._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
        dirty = {
            block.block_id
            for rid, per_group in spans.items()
            for span in per_group
            for block in managers[span.group].req_to_blocks.get(rid, [])[span.first_block :]
            if not block.is_null
        }
        if dirty:
            kv.evict_blocks(dirty)
