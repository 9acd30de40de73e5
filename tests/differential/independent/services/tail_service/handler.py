# Intended: correct.
# Idioms: service object in a helper module, frozen dataclass record, property, logging.
"""Fault handler: drop the unconfirmed KV tail, then abort everything."""

from __future__ import annotations

import logging

from kv_tail import TailEvictor
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        logger.warning("step failed (%s): aborting all requests", type(exc).__name__)
        evictor = TailEvictor(self.scheduler.kv_cache_manager)
        evictor.evict(list(self.scheduler.running))
        aborted = self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
