# Intended: buggy: on the resume path it preempts with drop_stale_output=True, so each resumed request is marked to drop the failed step's output frame, which never arrives, and drops its first good frame instead.
# Idioms: abort/resume switch, hasattr feature check on the preempt keyword, try/except with logging and re-raise, perf_counter timing.
# switch: resume_on_fault
from __future__ import annotations

import inspect
import logging
import time

from vllm.v1.request import RequestStatus

log = logging.getLogger(__name__)


class FaultHandler:
    resume_on_fault = True

    def __init__(self, engine):
        self.engine = engine
        self.elapsed = 0.0

    def _evict(self, sched):
        ids = set()
        for req in sched.running:
            cut = req.num_computed_tokens - req.num_in_flight_tokens
            for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
                ids.update(b.block_id for b in mgr.req_to_blocks.get(req.request_id, ())[cut // mgr.block_size :] if not b.is_null)
        sched.kv_cache_manager.evict_blocks(ids)

    def _preempt_all(self, sched):
        supports_drop = "drop_stale_output" in inspect.signature(sched._preempt_request).parameters
        now = time.monotonic()
        for req in list(sched.running):
            sched.running.remove(req)
            if supports_drop:
                sched._preempt_request(req, now, drop_stale_output=True)
            else:
                sched._preempt_request(req, now)
            req.num_in_flight_tokens = 0

    def on_fault(self, exc):
        sched = self.engine.scheduler
        t0 = time.perf_counter()
        try:
            self._evict(sched)
            if self.resume_on_fault:
                self._preempt_all(sched)
            else:
                aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
                if hasattr(self.engine, "_send_abort_outputs"):
                    self.engine._send_abort_outputs(aborted)
        except Exception:
            log.exception("fault recovery failed for %s", exc)
            raise
        finally:
            self.elapsed = time.perf_counter() - t0
