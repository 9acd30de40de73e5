# Intended: correct. Retries the eviction of every running request's unconfirmed tail (all KV-cache groups) a bounded number of times, collecting errors, and aborts all requests once it succeeded.
# Idioms: bounded retry loop with backoff, error list, custom exception, perf_counter, logging with %s.
from __future__ import annotations

import logging
import time

from vllm.v1.request import RequestStatus

LOG = logging.getLogger(__name__)
MAX_ATTEMPTS = 3
BACKOFF_S = 0.0


class EvictionGaveUp(RuntimeError):
    pass


def _collect(sched):
    out = set()
    managers = sched.kv_cache_manager.coordinator.single_type_managers
    for req in sched.running:
        keep = req.num_computed_tokens - req.num_in_flight_tokens
        for m in managers:
            lst = m.req_to_blocks.get(req.request_id)
            if not lst:
                continue
            start = keep // m.block_size
            out.update(blk.block_id for blk in lst[start:] if not blk.is_null)
    return out


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.errors: list = []

    def _evict_with_retry(self, sched):
        for attempt in range(1, MAX_ATTEMPTS + 1):
            t0 = time.perf_counter()
            try:
                ids = _collect(sched)
                sched.kv_cache_manager.evict_blocks(ids)
                LOG.info("evicted %s blocks on attempt %s in %.4fs", len(ids), attempt, time.perf_counter() - t0)
                return ids
            except Exception as err:  # retried below
                self.errors.append(err)
                LOG.warning("evict attempt %s/%s failed: %s", attempt, MAX_ATTEMPTS, err)
                time.sleep(BACKOFF_S * attempt)
        raise EvictionGaveUp(f"eviction failed {MAX_ATTEMPTS} times: {self.errors!r}")

    def on_fault(self, exc):
        sched = self.engine.scheduler
        LOG.error("fault: %s", exc)
        self._evict_with_retry(sched)
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        if hasattr(self.engine, "_send_abort_outputs"):
            self.engine._send_abort_outputs(aborted)
