# Intended: correct. Resumes after a fault: evicts each running request's unconfirmed tail in all KV-cache groups, preempts it to the waiting queue, and clears num_in_flight_tokens and num_stale_output_tokens after the preempt.
# Idioms: guard clauses, a timer context manager class, metrics counters, try/except with logging and re-raise, custom exception for invalid state.
from __future__ import annotations

import logging
import time

LOGGER = logging.getLogger(__name__)


class InvalidRequestState(RuntimeError):
    pass


class Stopwatch:
    def __init__(self, label):
        self.label = label
        self.elapsed = 0.0

    def __enter__(self):
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc_info):
        self.elapsed = time.perf_counter() - self._t0
        LOGGER.debug("%s: %.6fs", self.label, self.elapsed)
        return False


class Counters:
    def __init__(self):
        self.resumed = 0
        self.evicted = 0


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.counters = Counters()

    def _dirty_for(self, kv, req):
        if req.num_in_flight_tokens > req.num_computed_tokens:
            raise InvalidRequestState(f"{req.request_id}: more in flight than computed")
        cut = req.num_computed_tokens - req.num_in_flight_tokens
        picked = []
        for single in kv.coordinator.single_type_managers:
            seq = single.req_to_blocks.get(req.request_id)
            if not seq:
                continue
            picked += [b.block_id for b in seq[cut // single.block_size :] if not b.is_null]
        return picked

    def on_fault(self, exc):
        sched = self.engine.scheduler
        if sched is None:
            LOGGER.error("no scheduler; nothing to recover")
            return
        if not sched.running:
            return
        kv = sched.kv_cache_manager
        with Stopwatch("evict"):
            doomed = set()
            for req in sched.running:
                doomed.update(self._dirty_for(kv, req))
            kv.evict_blocks(doomed)
            self.counters.evicted += len(doomed)
        with Stopwatch("preempt"):
            now = time.monotonic()
            for req in list(sched.running):
                try:
                    sched.running.remove(req)
                    sched._preempt_request(req, now)
                finally:
                    req.num_in_flight_tokens = 0
                    req.num_stale_output_tokens = 0
                self.counters.resumed += 1
        LOGGER.warning("fault %s: resumed %s requests", exc, self.counters.resumed)
