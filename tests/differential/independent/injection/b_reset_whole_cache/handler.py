# Intended: buggy: instead of evicting each request's unconfirmed tail, the injected invalidator resets the whole prefix cache while the running requests still hold their blocks, which vLLM refuses (it returns False), so the dirty tail stays cached and the handler then aborts.
# Idioms: a Protocol cache invalidator in a helper module injected through the constructor,
# a default implementation when None, an injected abort callable and logger.
"""Abort-on-fault handler with an injected cache invalidator."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from vllm.v1.request import RequestStatus

from cache_invalidation import CacheInvalidator, PrefixCacheReset


class FaultHandler:
    def __init__(
        self,
        engine: Any,
        invalidator: CacheInvalidator | None = None,
        abort: Callable[[list[str]], list[Any]] | None = None,
        logger: logging.Logger | None = None,
    ) -> None:
        self.engine = engine
        sched = engine.scheduler
        self.invalidator = invalidator or PrefixCacheReset(sched.kv_cache_manager)
        self.abort = abort or (lambda ids: sched.finish_requests(ids, RequestStatus.FINISHED_ABORTED))
        self.logger = logger or logging.getLogger(__name__)

    def on_fault(self, exc: BaseException) -> None:
        ids = [r.request_id for r in self.engine.scheduler.running]
        self.invalidator.invalidate()
        aborted = self.abort(ids)
        self.engine._send_abort_outputs(aborted)
        self.logger.warning("fault %s: prefix cache invalidated, %d requests aborted", exc, len(aborted))
