# Intended: buggy: "to be safe" it evicts every block of every running request, including the confirmed prefix written by steps that succeeded, before aborting.
# Idioms: helper module, isinstance checks, try/except collecting errors and continuing, logging with %s.
from __future__ import annotations

import logging

from blocks import all_block_ids
from vllm.v1.request import Request, RequestStatus

log = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.errors: list[tuple[str, Exception]] = []

    def on_fault(self, exc):
        sched = self.engine.scheduler
        ids = set()
        for req in list(sched.running):
            if not isinstance(req, Request):
                log.warning("skipping non-request %r", req)
                continue
            try:
                ids |= all_block_ids(sched, req.request_id)
            except Exception as err:
                self.errors.append((req.request_id, err))
                log.error("block collection failed for %s: %s", req.request_id, err)
        if ids:
            sched.kv_cache_manager.evict_blocks(ids)
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        if hasattr(self.engine, "_send_abort_outputs"):
            self.engine._send_abort_outputs(aborted)
        log.warning("fault %s: evicted %s blocks, aborted %s, %s errors", exc, len(ids), len(aborted), len(self.errors))
