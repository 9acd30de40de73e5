# Intended: correct. With the default FT_EVICT=1, evicts each running request's unconfirmed tail in all KV-cache groups, and a finally block always aborts every request afterwards.
# Idioms: feature flag from environment with default on, try/except/finally that always aborts, logging with %s, hasattr feature check.
from __future__ import annotations

import logging
import os

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)

EVICT_ENABLED = os.environ.get("FT_EVICT", "1") == "1"


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _dirty_ids(self, sched):
        coordinator = sched.kv_cache_manager.coordinator
        ids = set()
        for request in sched.running:
            safe_tokens = request.num_computed_tokens - request.num_in_flight_tokens
            for group in coordinator.single_type_managers:
                chain = group.req_to_blocks.get(request.request_id, ())
                ids.update(b.block_id for b in chain[safe_tokens // group.block_size :] if not b.is_null)
        return ids

    def on_fault(self, exc):
        sched = self.engine.scheduler
        try:
            if EVICT_ENABLED and hasattr(sched.kv_cache_manager, "evict_blocks"):
                dirty = self._dirty_ids(sched)
                log.warning("fault %s: evicting %s unconfirmed blocks", exc, len(dirty))
                sched.kv_cache_manager.evict_blocks(dirty)
            else:
                log.warning("fault %s: eviction disabled by FT_EVICT", exc)
        except Exception as err:
            log.error("eviction step failed: %s", err)
            raise
        finally:
            aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            log.warning("aborted %s requests", len(aborted))
            notify = getattr(self.engine, "_send_abort_outputs", None)
            if notify is not None:
                notify(aborted)
