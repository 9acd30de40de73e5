# Intended: buggy: the tail's first block index is the confirmed count rounded up to a whole block, so a dirty block that starts before the boundary (decode fault) is not evicted before the abort.
# Idioms: Metrics class with a lock and a timing context manager in a helper module, math.ceil, try/except with logging and re-raise, getattr.
from __future__ import annotations

import logging
import math

from metrics import REGISTRY
from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _tail(self, sched, req):
        confirmed = req.num_computed_tokens - getattr(req, "num_in_flight_tokens", 0)
        ids = set()
        for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
            first = math.ceil(confirmed / mgr.block_size)
            for blk in mgr.req_to_blocks.get(req.request_id, ())[first:]:
                if not blk.is_null:
                    ids.add(blk.block_id)
        return ids

    def on_fault(self, exc):
        REGISTRY.inc("faults")
        sched = self.engine.scheduler
        with REGISTRY.time("evict"):
            try:
                ids = set().union(*(self._tail(sched, r) for r in sched.running)) if sched.running else set()
                sched.kv_cache_manager.evict_blocks(ids)
                REGISTRY.inc("evicted_blocks", len(ids))
            except Exception:
                REGISTRY.inc("evict_errors")
                log.exception("evict failed")
                raise
        with REGISTRY.time("abort"):
            aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        REGISTRY.inc("aborted", len(aborted))
        if hasattr(self.engine, "_send_abort_outputs"):
            self.engine._send_abort_outputs(aborted)
