# Intended: buggy: it evicts every block of each faulted request instead of only the unconfirmed tail, so the clean prefix written by earlier successful steps is thrown out of the prefix cache and the resumed request recomputes it.
# Two-phase resume handler modelled on `_update_requests_with_invalid_blocks`: collect a `blocks_to_evict` set over all running requests, one `evict_blocks`, then `_preempt_request` with counter reset.
# switch: resume_on_fault
from __future__ import annotations

import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.resume_on_fault = True

    def _collect_blocks_to_evict(self) -> set[int]:
        scheduler = self.engine.scheduler
        blocks_to_evict: set[int] = set()
        for request in scheduler.running:
            if request.num_in_flight_tokens == 0:
                continue  # not part of the failed step
            # One block-id list per KV cache group.
            for group_block_ids in scheduler.kv_cache_manager.get_block_ids(request.request_id):
                blocks_to_evict.update(group_block_ids)
        return blocks_to_evict

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        blocks_to_evict = self._collect_blocks_to_evict()
        if blocks_to_evict:
            scheduler.kv_cache_manager.evict_blocks(blocks_to_evict)

        if not self.resume_on_fault:
            aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return
        timestamp = time.monotonic()
        while scheduler.running:
            request = scheduler.running.pop()
            scheduler._preempt_request(request, timestamp)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
