# Intended: buggy: the dirty range starts at num_computed_tokens, ignoring num_in_flight_tokens, so it covers only tokens past what the failed step scheduled and the blocks that step actually filled (and cached) are never evicted.
# A PendingRange dataclass describes each request's dirty range and a list of cleanup callables (evict, abort, notify) runs in order.
from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from pending_range import PendingRange
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self._aborted: list[Any] = []
        self.cleanup: list[Callable[[], None]] = [self._evict_pending, self._abort_all, self._notify]

    @property
    def scheduler(self) -> Any:
        return self.engine.scheduler

    def _evict_pending(self) -> None:
        kv = self.scheduler.kv_cache_manager
        for request in self.scheduler.running:
            pending = PendingRange.of(request)
            ids = pending.block_ids(kv.coordinator.single_type_managers)
            if not ids:
                continue
            kv.evict_blocks(ids)
            logger.debug(f"{pending.request_id}: evicted {sorted(ids)}")

    def _abort_all(self) -> None:
        self._aborted = self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)

    def _notify(self) -> None:
        self.engine._send_abort_outputs(self._aborted)

    def on_fault(self, exc: BaseException) -> None:
        logger.error(f"engine fault: {exc!r}")
        for step in self.cleanup:
            step()
