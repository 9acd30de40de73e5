# Intended: correct.
# A small TailEvictor object (tail_evictor.py) holds the KV-cache manager and evicts each running request's unconfirmed tail, described by a DirtyRange dataclass, before everything is aborted.
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from tail_evictor import TailEvictor
from vllm.v1.request import RequestStatus

if TYPE_CHECKING:
    from vllm.v1.core.sched.scheduler import Scheduler

logger = logging.getLogger(__name__)


class FaultHandler:
    """Abort every request after a failed step, keeping the prefix cache honest."""

    def __init__(self, engine) -> None:
        self.engine = engine

    @property
    def scheduler(self) -> Scheduler:
        return self.engine.scheduler

    def on_fault(self, exc: BaseException) -> None:
        evictor = TailEvictor(self.scheduler.kv_cache_manager)
        for request in list(self.scheduler.running):
            evictor.evict(request)
        aborted = self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        logger.warning(
            f"engine fault ({exc!r}): evicted {evictor.evicted} unconfirmed blocks, "
            f"aborted {len(aborted)} requests"
        )
