# Intended: buggy: evicts every block of each running request, not just the unconfirmed tail, so clean prefix blocks lose their prefix-cache entries.
# Idioms: abort only; helper class in another module; get_block_ids over all groups; evict before finish_requests.
from __future__ import annotations

from typing import Any

from kv_cleanup import AbortedRequestBlockCleaner
from vllm.logger import init_logger
from vllm.v1.request import RequestStatus

logger = init_logger(__name__)


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: Exception) -> None:
        scheduler = self.engine.scheduler
        logger.warning(
            "[FT] Busy loop raised %s. Aborting %d running requests.",
            type(exc).__name__,
            len(scheduler.running),
        )
        AbortedRequestBlockCleaner(scheduler.kv_cache_manager).evict(scheduler.running)
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
