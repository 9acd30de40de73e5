# Intended: buggy: instead of evicting the unconfirmed tail it calls scheduler.reset_prefix_cache() while the running requests still hold their blocks, so the reset refuses (returns False, only logged) and every dirty block keeps its prefix-cache hash when the requests are then aborted.
# A registry of named cleanup steps (cleanup_registry.py, a list of callables run in order) with typing annotations and f-string logging.
from __future__ import annotations

import logging
from typing import Any

from cleanup_registry import CleanupRegistry
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.registry = CleanupRegistry()
        self.registry.add("invalidate-prefix-cache", self._invalidate_prefix_cache)
        self.registry.add("abort-requests", self._abort_requests)

    @property
    def scheduler(self) -> Any:
        return self.engine.scheduler

    def _invalidate_prefix_cache(self) -> None:
        # Drop every cached hash: the failed step may have cached blocks it never wrote.
        if not self.scheduler.reset_prefix_cache():
            logger.info("prefix cache reset deferred: blocks still in use")

    def _abort_requests(self) -> None:
        aborted = self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    def on_fault(self, exc: BaseException) -> None:
        logger.error(f"engine core fault: {exc!r}")
        self.registry.run_all()
