# Intended: correct.
# Idioms: functools.partial to pre-bind collaborators (KV-cache manager, scheduler, notifier)
# into plain module functions, injected callables with defaults when None, an injected logger.
"""Abort-on-fault handler built from pre-bound module functions."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from typing import Any

from vllm.v1.request import RequestStatus


def unconfirmed_block_ids(kv_cache_manager: Any, request: Any) -> set[int]:
    start_token = max(request.num_computed_tokens - request.num_in_flight_tokens, 0)
    found: set[int] = set()
    for group in kv_cache_manager.coordinator.single_type_managers:
        blocks = group.req_to_blocks.get(request.request_id)
        if not blocks:
            continue
        first = start_token // group.block_size
        found |= {blk.block_id for blk in blocks[first:] if not blk.is_null}
    return found


def evict_unconfirmed(kv_cache_manager: Any, request: Any) -> int:
    ids = unconfirmed_block_ids(kv_cache_manager, request)
    if ids:
        kv_cache_manager.evict_blocks(ids)
    return len(ids)


def abort_requests(scheduler: Any, notify: Callable[[list[Any]], None] | None, requests: Sequence[Any]) -> list[Any]:
    aborted = scheduler.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
    if notify is not None:
        notify(aborted)
    return aborted


class FaultHandler:
    def __init__(
        self,
        engine: Any,
        evict: Callable[[Any], int] | None = None,
        abort: Callable[[Sequence[Any]], list[Any]] | None = None,
        logger: logging.Logger | None = None,
    ) -> None:
        self.engine = engine
        sched = engine.scheduler
        self._evict = evict or functools.partial(evict_unconfirmed, sched.kv_cache_manager)
        self._abort = abort or functools.partial(abort_requests, sched, getattr(engine, "_send_abort_outputs", None))
        self._logger = logger or logging.getLogger(__name__)

    def on_fault(self, exc: BaseException) -> None:
        requests = tuple(self.engine.scheduler.running)
        n_blocks = sum(map(self._evict, requests))
        aborted = self._abort(requests)
        self._logger.error("step failed: %s; evicted %d blocks, aborted %d", exc, n_blocks, len(aborted))
