# Intended: buggy: the default block reader only looks at the first KV-cache group, so on a model with a second group (sliding window) the unconfirmed tail blocks of that group keep their prefix-cache hashes.
# Idioms: a Protocol-typed block reader injected through the constructor with a default
# adapter in a helper module, an injected evict callable and abort callable, a logger.
"""Abort-on-fault handler that reads KV blocks through an injected reader."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from vllm.v1.request import RequestStatus

from kv_block_reader import BlockReader, PrimaryGroupReader


class FaultHandler:
    def __init__(
        self,
        engine: Any,
        reader: BlockReader | None = None,
        evict: Callable[[set[int]], None] | None = None,
        abort: Callable[[list[str]], list[Any]] | None = None,
        logger: logging.Logger | None = None,
    ) -> None:
        self.engine = engine
        scheduler = engine.scheduler
        self.reader = reader or PrimaryGroupReader(scheduler.kv_cache_manager)
        self.evict = evict or scheduler.kv_cache_manager.evict_blocks
        self.abort = abort or (lambda ids: scheduler.finish_requests(ids, RequestStatus.FINISHED_ABORTED))
        self.logger = logger or logging.getLogger(__name__)

    def _tail(self, request: Any) -> set[int]:
        confirmed = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
        start = confirmed // self.reader.block_size
        return {b.block_id for b in self.reader.blocks(request.request_id)[start:] if not b.is_null}

    def on_fault(self, exc: BaseException) -> None:
        running = list(self.engine.scheduler.running)
        dirty: set[int] = set()
        for request in running:
            dirty |= self._tail(request)
        if dirty:
            self.evict(dirty)
        aborted = self.abort([r.request_id for r in running])
        self.engine._send_abort_outputs(aborted)
        self.logger.warning("fault %s: aborted %d, evicted %d blocks", exc, len(aborted), len(dirty))
