# Intended: buggy: the first dirty block is computed with `cdiv(confirmed, block_size)` instead of `confirmed // block_size`, so when the confirmed boundary falls inside a block (decode) the block the failed step completed is skipped and stays cached.
# Two-phase handler with `cdiv` from vllm.utils.math_utils, per-group managers, one `evict_blocks`, and an explicit id list for `finish_requests`.
# switch: resume_after_fault
from __future__ import annotations

import time

from vllm.utils.math_utils import cdiv
from vllm.v1.request import Request, RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.resume_after_fault = False

    def _dirty_blocks(self, request: Request) -> list[int]:
        kv_cache_manager = self.engine.scheduler.kv_cache_manager
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        out: list[int] = []
        for manager in kv_cache_manager.coordinator.single_type_managers:
            blocks = manager.req_to_blocks.get(request.request_id) or []
            # Number of blocks the confirmed tokens occupy: those are clean.
            num_clean_blocks = cdiv(num_confirmed, manager.block_size)
            out.extend(b.block_id for b in blocks[num_clean_blocks:] if not b.is_null)
        return out

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        request_ids = [req.request_id for req in scheduler.running]
        dirty: set[int] = set()
        for req_id in request_ids:
            dirty.update(self._dirty_blocks(scheduler.requests[req_id]))
        scheduler.kv_cache_manager.evict_blocks(dirty)

        if not self.resume_after_fault:
            aborted = scheduler.finish_requests(request_ids, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        timestamp = time.monotonic()
        while scheduler.running:
            request = scheduler.running.pop()
            scheduler._preempt_request(request, timestamp)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
