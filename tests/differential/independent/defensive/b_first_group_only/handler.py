# Intended: buggy: the unconfirmed tail is evicted only in the first KV-cache group, so with a second (sliding-window) group its dirty blocks stay cached when the requests are aborted.
# Idioms: helper module with getattr fallbacks, guard clause, try/except with logging and re-raise, perf_counter timing.
from __future__ import annotations

import logging
import time

from kvprobe import unconfirmed_block_ids
from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.evict_seconds = 0.0

    def on_fault(self, exc):
        sched = self.engine.scheduler
        if not getattr(sched, "running", None):
            return
        t0 = time.perf_counter()
        try:
            ids = set()
            for req in sched.running:
                ids |= unconfirmed_block_ids(sched, req)
            sched.kv_cache_manager.evict_blocks(ids)
        except Exception:
            log.exception("eviction failed")
            raise
        finally:
            self.evict_seconds = time.perf_counter() - t0
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        if hasattr(self.engine, "_send_abort_outputs"):
            self.engine._send_abort_outputs(aborted)
        log.warning("fault %s: aborted %s requests", exc, len(aborted))
