# Intended: correct.
# Idioms: contextlib.ExitStack guaranteeing the abort outputs are published, functools.cached_property for the per-group managers, walrus in comprehensions, keyword-only helper; always aborts.
"""Abort on fault, after evicting every request's unconfirmed KV tail.

The abort notification is registered on an ExitStack first so clients hear about
the abort even if eviction bookkeeping raises half-way.
"""

from __future__ import annotations

import logging
from contextlib import ExitStack
from functools import cached_property
from typing import Any, Final

from vllm.v1.request import Request, RequestStatus

log: Final = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    @cached_property
    def _managers(self) -> tuple[Any, ...]:
        return tuple(self.engine.scheduler.kv_cache_manager.coordinator.single_type_managers)

    def _dirty_ids(self, req: Request, *, confirmed: int) -> set[int]:
        return {
            blk.block_id
            for mgr in self._managers
            for blk in mgr.req_to_blocks.get(req.request_id, [])[confirmed // mgr.block_size :]
            if not blk.is_null
        }

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        aborted: list[Request] = []
        with ExitStack() as stack:
            stack.callback(lambda: aborted and self.engine._send_abort_outputs(aborted))
            stack.callback(log.warning, "fault %r: aborting %d request(s)", exc, len(scheduler.running))
            dirty: set[int] = set()
            for req in scheduler.running:
                if (confirmed := req.num_computed_tokens - req.num_in_flight_tokens) < req.num_computed_tokens:
                    dirty |= self._dirty_ids(req, confirmed=max(confirmed, 0))
            if dirty:
                scheduler.kv_cache_manager.evict_blocks(dirty)
            aborted.extend(
                scheduler.finish_requests([r.request_id for r in scheduler.running], RequestStatus.FINISHED_ABORTED)
            )
