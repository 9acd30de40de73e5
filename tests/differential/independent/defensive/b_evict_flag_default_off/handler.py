# Intended: buggy: the tail eviction is behind an environment flag that defaults to off, so under the default configuration every request is aborted with its unconfirmed blocks still in the prefix cache.
# Idioms: feature flag from environment with default, try/except/finally that always aborts, logging with %s, getattr.
from __future__ import annotations

import logging
import os

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)

SCRUB_ON_FAULT = os.environ.get("FT_SCRUB_ON_FAULT", "0") == "1"


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _scrub(self, sched):
        ids = set()
        for r in sched.running:
            ok = r.num_computed_tokens - r.num_in_flight_tokens
            for m in sched.kv_cache_manager.coordinator.single_type_managers:
                ids.update(b.block_id for b in m.req_to_blocks.get(r.request_id, ())[ok // m.block_size :] if not b.is_null)
        sched.kv_cache_manager.evict_blocks(ids)
        return len(ids)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        try:
            if SCRUB_ON_FAULT:
                log.info("scrubbed %s blocks", self._scrub(sched))
            else:
                log.debug("FT_SCRUB_ON_FAULT not set: skipping scrub")
        except Exception:
            log.exception("scrub failed after fault %s", exc)
        finally:
            aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            send = getattr(self.engine, "_send_abort_outputs", None)
            if send is not None:
                send(aborted)
            log.warning("fault %s: aborted %s requests", exc, len(aborted))
