# Intended: correct. Evicts every running request's unconfirmed tail in all KV-cache groups, with counters and timers around each step, then aborts all requests.
# Idioms: Metrics dataclass with a lock, perf_counter timing context manager, try/except with logging and re-raise, helper modules, custom exception.
from __future__ import annotations

import logging

from kvtail import TailLookupError, unconfirmed_tail_ids
from telemetry import METRICS, timed
from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.metrics = METRICS

    def _evict_tails(self, scheduler) -> int:
        doomed: set = set()
        for request in list(scheduler.running):
            try:
                doomed |= unconfirmed_tail_ids(scheduler, request)
            except TailLookupError:
                log.exception("tail lookup failed for %s", request.request_id)
                self.metrics.incr("errors")
                raise
        if doomed:
            scheduler.kv_cache_manager.evict_blocks(doomed)
        return len(doomed)

    def on_fault(self, exc):
        self.metrics.incr("faults")
        scheduler = self.engine.scheduler
        log.warning("engine fault (%s): evicting unconfirmed KV and aborting", exc)
        with timed("evict"):
            try:
                evicted = self._evict_tails(scheduler)
            except Exception:
                log.exception("eviction failed; refusing to abort with dirty KV cached")
                raise
        self.metrics.incr("blocks_evicted", evicted)
        with timed("abort"):
            try:
                aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            except Exception:
                log.exception("finish_requests failed")
                self.metrics.incr("errors")
                raise
        self.metrics.incr("requests_aborted", len(aborted))
        send = getattr(self.engine, "_send_abort_outputs", None)
        if callable(send):
            send(aborted)
        log.info("fault handled: %s blocks evicted, %s requests aborted", evicted, len(aborted))
