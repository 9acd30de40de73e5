# Intended: correct.
# Idioms: ports-and-adapters with typing.Protocol (BlockSource, CacheEvictor) in a helper
# module, NamedTuple records per KV-cache group, constructor injection with adapter defaults,
# an injected notifier for aborted requests.
"""Abort-on-fault handler that talks to the KV cache only through ports."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vllm.v1.request import RequestStatus

from kv_ports import BlockSource, CacheEvictor, KVManagerBlockSource, KVManagerEvictor


class FaultHandler:
    def __init__(
        self,
        engine: Any,
        source: BlockSource | None = None,
        evictor: CacheEvictor | None = None,
        notify_aborted: Callable[[list[Any]], None] | None = None,
    ) -> None:
        self.engine = engine
        kv = engine.scheduler.kv_cache_manager
        self.source = source or KVManagerBlockSource(kv)
        self.evictor = evictor or KVManagerEvictor(kv)
        self.notify_aborted = notify_aborted or engine._send_abort_outputs

    def dirty_blocks(self, request: Any) -> set[int]:
        confirmed = max(request.num_computed_tokens - request.num_in_flight_tokens, 0)
        result: set[int] = set()
        for group in self.source.blocks_of(request.request_id):
            for block in group.blocks[confirmed // group.block_size :]:
                if not block.is_null:
                    result.add(block.block_id)
        return result

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        running = list(scheduler.running)
        for request in running:
            self.evictor.evict(self.dirty_blocks(request))
        aborted = scheduler.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
        self.notify_aborted(aborted)
