# Intended: correct.
# Snapshots each group's req_to_blocks into a plain dict and looks requests up with try/except KeyError, clamps the confirmed boundary with max/min, and tallies the evicted blocks per group in a collections.Counter.
# switch: resume_after_recovery
from __future__ import annotations

import logging
import time
from collections import Counter
from typing import Any

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


def evict_tails(scheduler: Any) -> Counter[int]:
    tally: Counter[int] = Counter()
    kv = scheduler.kv_cache_manager
    tables = [(mgr.block_size, dict(mgr.req_to_blocks)) for mgr in kv.coordinator.single_type_managers]
    dirty: set[int] = set()
    for req in scheduler.running:
        confirmed = max(0, req.num_computed_tokens - req.num_in_flight_tokens)
        for group, (size, table) in enumerate(tables):
            try:
                blocks = table[req.request_id]
            except KeyError:
                continue
            start = min(confirmed // size, len(blocks))
            ids = {b.block_id for b in blocks[start:] if not b.is_null and b.block_hash is not None}
            tally[group] += len(ids)
            dirty |= ids
    if dirty:
        kv.evict_blocks(dirty)
    return tally


class FaultHandler:
    resume_after_recovery: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        tally = evict_tails(scheduler)
        log.info("fault %r: evicted %d dirty blocks (%s)", exc, sum(tally.values()), dict(tally))
        if self.resume_after_recovery:
            now = time.monotonic()
            while scheduler.running:
                req = scheduler.running.pop()
                scheduler._preempt_request(req, now)
                req.num_in_flight_tokens, req.num_stale_output_tokens = 0, 0
        else:
            aborted = scheduler.finish_requests(
                [r.request_id for r in scheduler.running] + [r.request_id for r in scheduler.waiting],
                RequestStatus.FINISHED_ABORTED,
            )
            self.engine._send_abort_outputs(aborted)
