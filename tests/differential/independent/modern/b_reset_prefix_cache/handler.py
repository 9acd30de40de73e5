# Intended: buggy: it tries to drop the dirty blocks by resetting the whole prefix cache while the running requests still hold their blocks; KVCacheManager.reset_prefix_cache refuses (returns False) in that state, the result is ignored, and the dirty tail stays cached through the abort.
# Idioms: contextlib.ExitStack with the abort registered as an exit callback, functools.cached_property, typing.Final, walrus; always aborts.
"""Abort on fault after invalidating the prefix cache, so nothing the failed step wrote can be re-hit."""

from __future__ import annotations

import logging
from contextlib import ExitStack
from functools import cached_property
from typing import Any, Final

from vllm.v1.request import RequestStatus

logger: Final = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    @cached_property
    def kv(self) -> Any:
        return self.engine.scheduler.kv_cache_manager

    def _abort(self, request_ids: list[str]) -> None:
        if aborted := self.engine.scheduler.finish_requests(request_ids, RequestStatus.FINISHED_ABORTED):
            self.engine._send_abort_outputs(aborted)

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        with ExitStack() as stack:
            stack.callback(self._abort, [r.request_id for r in sched.running])
            # Weights are fine but the KV the failed step wrote is not: invalidate
            # every cached hash rather than guess which blocks it touched.
            self.kv.reset_prefix_cache()
            logger.info("prefix cache invalidated after %s", type(exc).__name__)
