# Intended: buggy: the sequence pattern binds only the first KV-cache group's block ids, so on a hybrid model (full plus sliding-window attention) the dirty tail of the other group stays cached.
# Idioms: match with sequence patterns and star capture on KVCacheManager.get_block_ids(), walrus, keyword-only parameters, typing.Final; always aborts.
"""Abort on fault after evicting each request's unconfirmed tail."""

from __future__ import annotations

from typing import Any, Final

from vllm.v1.request import RequestStatus

ABORTED: Final = RequestStatus.FINISHED_ABORTED


def tail_of(block_ids: list[int], *, confirmed: int, block_size: int) -> list[int]:
    return block_ids[confirmed // block_size :]


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        block_size: int = kv.coordinator.single_type_managers[0].block_size
        stale: set[int] = set()
        for req in sched.running:
            confirmed = max(0, req.num_computed_tokens - req.num_in_flight_tokens)
            match kv.get_block_ids(req.request_id):
                case ():
                    continue
                case (ids, *_):
                    stale.update(i for i in tail_of(ids, confirmed=confirmed, block_size=block_size) if i != 0)
        if stale:
            kv.evict_blocks(stale)
        if aborted := sched.finish_requests([r.request_id for r in sched.running], ABORTED):
            self.engine._send_abort_outputs(aborted)
