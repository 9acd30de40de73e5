# Intended: buggy: the first unconfirmed block index rounds the confirmed token count up, so a block that holds both confirmed tokens and tokens of the failed step stays in the prefix cache.
# Idioms: small utility module with a NamedTuple range and a ceiling-division helper, per-group loop.
"""Abort after evicting the blocks the confirmed tokens do not occupy."""

from __future__ import annotations

from blockmath import unconfirmed_range
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        evict: set[int] = set()
        for request in scheduler.running:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for manager in kv.coordinator.single_type_managers:
                blocks = manager.req_to_blocks[request.request_id]
                evict.update(unconfirmed_range(confirmed, len(blocks), manager.block_size).ids(blocks))
        if evict:
            kv.evict_blocks(evict)
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
