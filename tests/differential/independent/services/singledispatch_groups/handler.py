# Intended: correct.
# Idioms: functools.singledispatch on the KV-cache manager type, itertools.chain, list comprehension, logging.
"""Abort after evicting each group's unconfirmed tail, group kind by group kind."""

from __future__ import annotations

import itertools
import logging
from functools import singledispatch

from vllm.v1.core.single_type_kv_cache_manager import SingleTypeKVCacheManager, SlidingWindowManager
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


@singledispatch
def tail_ids(manager, request_id: str, confirmed: int) -> list[int]:
    raise TypeError(f"no tail rule for {type(manager).__name__}")


@tail_ids.register
def _(manager: SingleTypeKVCacheManager, request_id: str, confirmed: int) -> list[int]:
    blocks = manager.req_to_blocks[request_id]
    return [b.block_id for b in blocks[confirmed // manager.block_size :]]


@tail_ids.register
def _(manager: SlidingWindowManager, request_id: str, confirmed: int) -> list[int]:
    # Blocks that slid out of the window are the shared null block: nothing to evict there.
    blocks = manager.req_to_blocks[request_id]
    return [b.block_id for b in blocks[confirmed // manager.block_size :] if not b.is_null]


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        per_request = [
            tail_ids(mgr, req.request_id, req.num_computed_tokens - req.num_in_flight_tokens)
            for req in sched.running
            for mgr in managers
        ]
        dirty = set(itertools.chain.from_iterable(per_request))
        logger.info("fault %r: evicting %d blocks before abort", exc, len(dirty))
        kv.evict_blocks(dirty)
        aborted = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
