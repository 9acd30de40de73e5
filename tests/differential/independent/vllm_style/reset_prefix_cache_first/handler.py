# Intended: buggy: it relies on `reset_prefix_cache()` to drop the failed step's hashes, but calls it while the running requests still hold their blocks, so the reset fails (returns False) and the unconfirmed tail stays cached when the requests are aborted.
# Upstream-sentinel abort (`finish_requests(None, FINISHED_ABORTED)` + `_send_abort_outputs`) preceded by the engine's own cache-reset call, with a logged warning on failure.
from __future__ import annotations

import logging

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        # Hashes of blocks scheduled in the failed step point at KV that was
        # never written: invalidate the prefix cache before anything reuses it.
        if not scheduler.reset_prefix_cache():
            logger.warning("Prefix cache reset after fault was incomplete: %s", exc)
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
