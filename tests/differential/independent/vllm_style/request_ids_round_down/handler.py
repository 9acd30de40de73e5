# Intended: correct.
# Works on request ids and `self.scheduler.requests[...]` lookups, including waiting requests that were partially scheduled, computes the confirmed boundary with `round_down` from vllm.utils.math_utils, and aborts by explicit id list.
from __future__ import annotations

from vllm.utils.math_utils import round_down
from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _affected_request_ids(self) -> list[str]:
        scheduler = self.engine.scheduler
        req_ids = [req.request_id for req in scheduler.running]
        # Chunked prefills preempted earlier may still hold blocks.
        req_ids.extend(
            req.request_id
            for req in scheduler.waiting
            if req.num_computed_tokens > 0
        )
        return req_ids

    def _tail_blocks(self, req_id: str) -> set[int]:
        scheduler = self.engine.scheduler
        request = scheduler.requests[req_id]
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        if num_confirmed == request.num_computed_tokens:
            return set()  # nothing of this request was in the failed step
        tail: set[int] = set()
        for manager in scheduler.kv_cache_manager.coordinator.single_type_managers:
            blocks = manager.req_to_blocks.get(req_id) or []
            block_size = manager.block_size
            start_token = round_down(num_confirmed, block_size)
            for idx in range(start_token // block_size, len(blocks)):
                block = blocks[idx]
                if not block.is_null:
                    tail.add(block.block_id)
        return tail

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        req_ids = self._affected_request_ids()
        to_evict: set[int] = set()
        for req_id in req_ids:
            to_evict |= self._tail_blocks(req_id)
        scheduler.kv_cache_manager.evict_blocks(to_evict)
        aborted = scheduler.finish_requests(req_ids, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
