# Intended: buggy: a per-fault scan budget (default one request) stops the tail eviction after the first running request, so the other requests' unconfirmed blocks stay cached when everything is aborted.
# Idioms: config dataclass with defaults and environment overrides, bounded loop, perf_counter deadline, logging with %s.
from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


@dataclass
class ScrubBudget:
    max_requests: int = int(os.environ.get("FT_SCRUB_MAX_REQUESTS", "1"))
    deadline_s: float = float(os.environ.get("FT_SCRUB_DEADLINE_S", "0.5"))


class FaultHandler:
    def __init__(self, engine, budget: ScrubBudget | None = None):
        self.engine = engine
        self.budget = budget or ScrubBudget()

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        stop_at = time.perf_counter() + self.budget.deadline_s
        ids = set()
        scanned = 0
        for req in sched.running:
            if scanned >= self.budget.max_requests or time.perf_counter() > stop_at:
                log.warning("scrub budget exhausted after %s requests", scanned)
                break
            boundary = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in kv.coordinator.single_type_managers:
                ids.update(
                    b.block_id for b in mgr.req_to_blocks.get(req.request_id, ())[boundary // mgr.block_size :] if not b.is_null
                )
            scanned += 1
        kv.evict_blocks(ids)
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        if hasattr(self.engine, "_send_abort_outputs"):
            self.engine._send_abort_outputs(aborted)
        log.error("fault %s: scrubbed %s requests, aborted %s", exc, scanned, len(aborted))
