# Intended: correct. Evicts each running request's unconfirmed tail in every KV-cache group one request at a time, collecting per-request errors and continuing, then aborts all requests and logs the error summary.
# Idioms: per-request try/except collecting errors into a list and continuing, error summary logging, getattr defaults.
from __future__ import annotations

import logging
from dataclasses import dataclass

from vllm.v1.request import RequestStatus

_log = logging.getLogger(__name__)


@dataclass
class StepError:
    request_id: str
    stage: str
    error: BaseException


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.errors: list[StepError] = []

    def _evict_one(self, kv, req):
        frontier = req.num_computed_tokens - req.num_in_flight_tokens
        ids = set()
        for mgr in kv.coordinator.single_type_managers:
            per_req = mgr.req_to_blocks.get(req.request_id, [])
            first_dirty = frontier // mgr.block_size
            ids.update(b.block_id for b in per_req[first_dirty:] if not b.is_null)
        if ids:
            kv.evict_blocks(ids)
        return len(ids)

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        total = 0
        for req in list(sched.running):
            try:
                total += self._evict_one(kv, req)
            except Exception as err:  # keep going: other requests still need scrubbing
                self.errors.append(StepError(getattr(req, "request_id", "?"), "evict", err))
                _log.error("evict failed for %s: %s", getattr(req, "request_id", "?"), err)
        try:
            aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        except Exception as err:
            self.errors.append(StepError("*", "abort", err))
            _log.error("abort failed: %s", err)
            raise
        sender = getattr(self.engine, "_send_abort_outputs", None)
        if sender:
            sender(aborted)
        _log.warning("fault %s: %s blocks evicted, %s aborted, %s errors", exc, total, len(aborted), len(self.errors))
