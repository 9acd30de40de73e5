# Intended: buggy: a sanity filter meant to keep only valid block ids compares each id with len(blocks), the length of the request's own block list, instead of the pool size, so most dirty tail ids are dropped before eviction and stay cached.
# Per-request DirtySpan-style tuples keyed by request id, enumerate over groups, and a filtering set comprehension before a single evict call; then everything is aborted.
from __future__ import annotations

from typing import Any, NamedTuple

from vllm.v1.request import RequestStatus


class DirtySpan(NamedTuple):
    request_id: str
    first_block: int
    group: int


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        managers = kv.coordinator.single_type_managers
        dirty: set[int] = set()
        for req in scheduler.running:
            confirmed = req.num_computed_tokens - req.num_in_flight_tokens
            for group, mgr in enumerate(managers):
                span = DirtySpan(req.request_id, confirmed // mgr.block_size, group)
                blocks = mgr.req_to_blocks.get(span.request_id, [])
                tail = [b.block_id for b in blocks[span.first_block :] if not b.is_null]
                # Never hand the pool an id it does not own (it asserts on that).
                dirty |= {bid for bid in tail if 0 <= bid < len(blocks)}
        if dirty:
            kv.evict_blocks(dirty)
        self.engine._send_abort_outputs(scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED))
