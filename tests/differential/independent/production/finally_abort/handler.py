# Intended: correct.
# The tail eviction runs in a try block and the abort in its finally clause, so requests are aborted even if scrubbing fails; the eviction itself always precedes the free.
from __future__ import annotations

import logging

import tail_blocks
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def kv(self):
        return self.engine.scheduler.kv_cache_manager

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        try:
            for request in scheduler.running:
                ids = tail_blocks.dirty_ids(self.kv, request)
                if not ids:
                    continue
                self.kv.evict_blocks(ids)
                logger.info(f"evicted {len(ids)} dirty blocks of {request.request_id}")
        except Exception:
            logger.exception("tail eviction failed; aborting anyway")
            raise
        finally:
            aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
