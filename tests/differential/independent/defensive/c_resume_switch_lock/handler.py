# Intended: correct. Under a lock, evicts the unconfirmed tail of every running request in each KV-cache group, then either aborts everything or preempts the requests back to waiting and clears both stale counters.
# Idioms: threading.Lock, abort/resume switch attribute, getattr defaults, guard clause, try/except with logging and re-raise, perf_counter timing.
# switch: resume_enabled
from __future__ import annotations

import logging
import threading
import time

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)
_FAULT_LOCK = threading.Lock()


class FaultHandler:
    resume_enabled = False

    def __init__(self, engine):
        self.engine = engine
        self.last_duration_s = None

    @staticmethod
    def _tail_blocks(kv, req):
        tail = set()
        boundary = req.num_computed_tokens - getattr(req, "num_in_flight_tokens", 0)
        for mgr in kv.coordinator.single_type_managers:
            owned = mgr.req_to_blocks.get(req.request_id, [])
            for idx in range(boundary // mgr.block_size, len(owned)):
                blk = owned[idx]
                if not blk.is_null:
                    tail.add(blk.block_id)
        return tail

    def _scrub(self, sched):
        kv = getattr(sched, "kv_cache_manager", None)
        if kv is None:
            logger.error("no kv_cache_manager on %s; cannot scrub", type(sched).__name__)
            return
        ids = set()
        for req in sched.running:
            try:
                ids.update(self._tail_blocks(kv, req))
            except Exception:
                logger.exception("could not compute tail of %s", req.request_id)
                raise
        if ids:
            kv.evict_blocks(ids)
            logger.info("scrubbed %s unconfirmed blocks", len(ids))

    def _resume(self, sched):
        stamp = time.monotonic()
        victims = list(sched.running)
        for req in victims:
            sched.running.remove(req)
            sched._preempt_request(req, stamp)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
        logger.info("preempted %s requests for resume", len(victims))

    def _abort(self, sched):
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        if hasattr(self.engine, "_send_abort_outputs"):
            self.engine._send_abort_outputs(aborted)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        if not sched.running:
            logger.info("fault %r with nothing running", exc)
            return
        began = time.perf_counter()
        with _FAULT_LOCK:
            try:
                self._scrub(sched)
                if self.resume_enabled:
                    self._resume(sched)
                else:
                    self._abort(sched)
            except Exception:
                logger.exception("fault handling failed (resume=%s)", self.resume_enabled)
                raise
            finally:
                self.last_duration_s = time.perf_counter() - began
