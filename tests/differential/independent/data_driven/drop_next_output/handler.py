# Intended: buggy: on resume it preempts with drop_stale_output=True and only clears num_in_flight_tokens, so each request keeps a stale count and is marked to drop it; the failed step's frame never arrives, so the first good output frame after recovery is thrown away.
# Evicts the tails from a dict of first dirty blocks keyed by group index per request, then dispatches on a boolean with early return.
# switch: resume
from __future__ import annotations

import time
from typing import Any

from vllm.v1.request import RequestStatus


def evict_tails(scheduler: Any) -> None:
    kv = scheduler.kv_cache_manager
    managers = kv.coordinator.single_type_managers
    firsts: dict[str, dict[int, int]] = {
        req.request_id: {
            g: (req.num_computed_tokens - req.num_in_flight_tokens) // m.block_size for g, m in enumerate(managers)
        }
        for req in scheduler.running
    }
    dirty = {
        b.block_id
        for rid, per_group in firsts.items()
        for g, first in per_group.items()
        for b in managers[g].req_to_blocks.get(rid, [])[first:]
        if b.block_hash is not None
    }
    if dirty:
        kv.evict_blocks(dirty)


class FaultHandler:
    resume: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        evict_tails(scheduler)
        if not self.resume:
            self.engine._send_abort_outputs(scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED))
            return
        if not scheduler.running:
            return
        now = time.monotonic()
        requests, scheduler.running = scheduler.running, []
        for req in reversed(requests):
            # The failed step's output is stale: have the scheduler discard it.
            scheduler._preempt_request(req, now, drop_stale_output=True)
            req.num_in_flight_tokens = 0
