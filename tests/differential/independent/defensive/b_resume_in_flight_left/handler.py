# Intended: buggy: after preempting each request back to waiting it clears num_stale_output_tokens but leaves num_in_flight_tokens set, so the resumed request's confirmed boundary is off by the lost step.
# Idioms: guard clause, metrics dict, try/except per request collecting errors and continuing, logging with %s, getattr defaults.
from __future__ import annotations

import logging
import time

log = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.metrics = {"resumed": 0, "evicted": 0, "errors": 0}
        self.errors: list[Exception] = []

    def on_fault(self, exc):
        sched = self.engine.scheduler
        if not getattr(sched, "running", None):
            return
        kv = sched.kv_cache_manager
        ids = set()
        for req in sched.running:
            edge = req.num_computed_tokens - getattr(req, "num_in_flight_tokens", 0)
            for mgr in kv.coordinator.single_type_managers:
                ids.update(b.block_id for b in mgr.req_to_blocks.get(req.request_id, ())[edge // mgr.block_size :] if not b.is_null)
        kv.evict_blocks(ids)
        self.metrics["evicted"] += len(ids)
        ts = time.monotonic()
        for req in list(sched.running):
            try:
                sched.running.remove(req)
                sched._preempt_request(req, ts)
                req.num_stale_output_tokens = 0  # nothing stale will ever arrive
                self.metrics["resumed"] += 1
            except Exception as err:
                self.metrics["errors"] += 1
                self.errors.append(err)
                log.error("could not resume %s: %s", req.request_id, err)
        log.warning("fault %s: %s", exc, self.metrics)
