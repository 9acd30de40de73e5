# Intended: correct.
# Two-phase handler: collect the dirty tail ids of running and partially scheduled waiting requests first, one `evict_blocks` call, then preempt in `reversed` order (scheduler-style `running.pop()`) or abort by explicit id list.
# switch: resume_requests
from __future__ import annotations

import time

from vllm.v1.request import Request, RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        # Resume (preempt back to waiting, recompute the tail) instead of abort.
        self.resume_requests = False

    def _dirty_tail_block_ids(self, request: Request) -> list[int]:
        """Block ids covering [num_computed - num_in_flight, num_computed)."""
        coordinator = self.engine.scheduler.kv_cache_manager.coordinator
        num_confirmed = max(0, request.num_computed_tokens - request.num_in_flight_tokens)
        block_ids: list[int] = []
        for manager in coordinator.single_type_managers:
            req_blocks = manager.req_to_blocks.get(request.request_id) or []
            start = num_confirmed // manager.block_size
            block_ids.extend(b.block_id for b in req_blocks[start:] if not b.is_null)
        return block_ids

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler

        # Phase 1: everything that may hold KV written by the failed step.
        affected: list[Request] = list(scheduler.running)
        affected.extend(
            req
            for req in scheduler.waiting
            if req.num_computed_tokens > 0 and not req.is_finished()
        )
        blocks_to_evict: set[int] = set()
        for request in affected:
            blocks_to_evict.update(self._dirty_tail_block_ids(request))

        # Phase 2: one eviction while every request still owns its blocks.
        if blocks_to_evict:
            scheduler.kv_cache_manager.evict_blocks(blocks_to_evict)

        # Phase 3: release the requests.
        if self.resume_requests:
            timestamp = time.monotonic()
            # Preempt in reverse order so the requests are re-added to the
            # running queue in FIFO order, as in Scheduler.schedule().
            while scheduler.running:
                request = scheduler.running.pop()
                scheduler._preempt_request(request, timestamp)
                # The failed step's output frame never arrives.
                request.num_in_flight_tokens = 0
                request.num_stale_output_tokens = 0
        else:
            request_ids = [req.request_id for req in affected]
            aborted = scheduler.finish_requests(request_ids, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
