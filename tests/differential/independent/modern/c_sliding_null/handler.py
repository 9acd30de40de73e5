# Intended: correct.
# Idioms: KVCacheManager.get_blocks(...).blocks per group with block sizes from the KV-cache config specs, match on (block, index) tuples with a class pattern skipping the null padding block, typing.Final, generator expression feeding a single evict call; always aborts.
"""Abort on fault; first evict the unconfirmed tail in every KV-cache group (hybrid models included)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from vllm.v1.core.kv_cache_utils import KVCacheBlock
from vllm.v1.request import Request, RequestStatus

FINISHED: Final = RequestStatus.FINISHED_ABORTED


def _group_block_sizes(scheduler: Any) -> tuple[int, ...]:
    return tuple(g.kv_cache_spec.block_size for g in scheduler.kv_cache_config.kv_cache_groups)


def _tail(scheduler: Any, request: Request, sizes: tuple[int, ...]) -> Iterator[int]:
    confirmed = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
    per_group = scheduler.kv_cache_manager.get_blocks(request.request_id).blocks
    for blocks, size in zip(per_group, sizes, strict=True):
        first = confirmed // size
        for item in zip(blocks, range(len(blocks))):
            match item:
                case (KVCacheBlock(is_null=True), _):
                    continue  # padding for a sliding-window group: never cached
                case (KVCacheBlock(block_id=bid), idx) if idx >= first:
                    yield bid
                case _:
                    pass


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        sizes = _group_block_sizes(sched)
        doomed = tuple(sched.running)
        sched.kv_cache_manager.evict_blocks({bid for req in doomed for bid in _tail(sched, req, sizes)})
        self.engine._send_abort_outputs(sched.finish_requests([r.request_id for r in doomed], FINISHED))
