# Intended: correct.
# Idioms: frozen slots dataclass per-group tail, match on a list of GroupTail instances (class patterns with captures), BlockPool.evict_blocks called per group, KV zeroing recorded from a block-aligned start before anything is freed, abort/resume switch.
# switch: keep_requests
"""Per-group tail eviction straight on the block pool, with zeroing where the model needs it."""

from __future__ import annotations

import time
from typing import Any

from vllm.v1.request import RequestStatus

from blockspan import GroupTail, group_tail


class FaultHandler:
    keep_requests: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def _tails(self, request: Any) -> list[GroupTail]:
        confirmed = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
        managers = self.engine.scheduler.kv_cache_manager.coordinator.single_type_managers
        return [
            group_tail(group=g, manager=m, request_id=request.request_id, confirmed=confirmed)
            for g, m in enumerate(managers)
        ]

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        pool = kv.block_pool
        requests = list(sched.running)
        for request in requests:
            tails = self._tails(request)
            for tail in tails:
                match tail:
                    case GroupTail(block_ids=()):
                        pass
                    case GroupTail(block_ids=ids):
                        pool.evict_blocks(set(ids))
            if sched.needs_kv_cache_zeroing and len({t.start_token for t in tails}) == 1:
                kv.record_blocks_for_zeroing(request.request_id, tails[0].start_token)

        if not self.keep_requests:
            aborted = sched.finish_requests([r.request_id for r in requests], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        now = time.monotonic()
        for request in reversed(requests):
            sched.running.remove(request)
            sched._preempt_request(request, now)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
