# Intended: correct.
# Idioms: abort only; eviction in a helper class from another module built from the kv_cache_manager; skips blocks without a hash; logs the count.
from __future__ import annotations

from typing import Any

from kv_tail import UnconfirmedBlockEvictor
from vllm.logger import init_logger
from vllm.v1.request import RequestStatus

logger = init_logger(__name__)


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: Exception) -> None:
        scheduler = self.engine.scheduler
        evictor = UnconfirmedBlockEvictor(scheduler.kv_cache_manager)
        num_evicted = evictor.evict(scheduler.running)
        if num_evicted:
            logger.warning(
                "[FT] Evicted %d KV cache blocks written by the failed step.",
                num_evicted,
            )

        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        logger.warning(
            "[FT] Busy loop raised %s. Aborted %d requests.",
            type(exc).__name__,
            len(aborted),
        )
