# Intended: buggy: the default evictor drops every block the request holds from the prefix cache, including the clean prefix written by steps that succeeded, so resumed or repeated prompts lose their KV reuse and recompute from scratch.
# Idioms: a Protocol evictor with a default chosen when None, an injected block-id provider
# (KVCacheManager.get_block_ids) as a seam, an injected clock, an abort/resume switch.
# switch: resume
"""Fault handler that scrubs requests through an injected block-id provider."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from vllm.v1.request import RequestStatus

BlockIdProvider = Callable[[str], Iterable[Iterable[int]]]


class Evictor(Protocol):
    def scrub(self, request: Any) -> None: ...


class RequestScrubber:
    """Removes a faulted request's blocks from the prefix cache."""

    def __init__(self, block_ids: BlockIdProvider, evict: Callable[[set[int]], None], null_id: int = 0) -> None:
        self.block_ids = block_ids
        self.evict = evict
        self.null_id = null_id

    def scrub(self, request: Any) -> None:
        ids = {bid for group in self.block_ids(request.request_id) for bid in group if bid != self.null_id}
        if ids:
            self.evict(ids)


class FaultHandler:
    resume = False

    def __init__(
        self,
        engine: Any,
        evictor: Evictor | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.engine = engine
        kv = engine.scheduler.kv_cache_manager
        self.evictor = evictor or RequestScrubber(kv.get_block_ids, kv.evict_blocks, kv.block_pool.null_block.block_id)
        self.clock = clock or time.monotonic

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        victims = list(scheduler.running)
        for request in victims:
            self.evictor.scrub(request)
        if self.resume:
            when = self.clock()
            for request in reversed(victims):
                scheduler.running.remove(request)
                scheduler._preempt_request(request, when)
                request.num_in_flight_tokens = request.num_stale_output_tokens = 0
        else:
            self.engine._send_abort_outputs(
                scheduler.finish_requests([r.request_id for r in victims], RequestStatus.FINISHED_ABORTED)
            )
