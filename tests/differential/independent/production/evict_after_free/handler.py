# Intended: buggy: the tail eviction runs in a finally clause after finish_requests has freed the requests, and TailEvictor reads each request's block list only then, when the KV manager has already dropped it, so nothing is evicted and the dirty blocks stay cached.
# try/finally so that the eviction "always runs"; a TailEvictor helper class holds the KV manager and logs with f-strings.
from __future__ import annotations

import logging
from typing import Any

from tail_evictor import TailEvictor
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    @property
    def scheduler(self) -> Any:
        return self.engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        evictor = TailEvictor(self.scheduler.kv_cache_manager)
        faulted = list(self.scheduler.running)
        try:
            aborted = self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
        finally:
            for request in faulted:
                evictor.evict_tail(request)
            logger.warning(f"{exc!r}: {len(faulted)} requests aborted, {evictor.evicted} tail blocks evicted")
