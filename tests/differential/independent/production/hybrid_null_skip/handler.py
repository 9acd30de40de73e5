# Intended: correct.
# Written for hybrid models: per-group block sizes, early continue past null padding blocks and unhashed blocks, and a KVJanitor helper class that the abort and resume paths share.
# switch: resume_requests
from __future__ import annotations

import logging
import time

from janitor import KVJanitor
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine
        self.resume_requests = True

    @property
    def scheduler(self):
        return self.engine.scheduler

    @property
    def janitor(self) -> KVJanitor:
        return KVJanitor(self.scheduler.kv_cache_manager)

    def on_fault(self, exc: BaseException) -> None:
        janitor = self.janitor
        for request in self.scheduler.running:
            janitor.drop_unconfirmed(request)
        logger.info(f"dropped {janitor.dropped} unconfirmed block hashes after {exc!r}")
        if not self.resume_requests:
            self.engine._send_abort_outputs(
                self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            )
            return
        ts = time.monotonic()
        for request in reversed(list(self.scheduler.running)):
            self.scheduler.running.remove(request)
            self.scheduler._preempt_request(request, ts)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
