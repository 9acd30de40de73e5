# Intended: buggy: the resume path preempts without evicting the unconfirmed tail (only the abort path evicts), so resumed requests re-hit the failed step's blocks.
# Idioms: abort/resume switch; eviction inside the abort helper only; private helpers per path; while-pop preempt with counter reset.
# switch: resume_requests
from __future__ import annotations

import time
from typing import Any

from vllm.logger import init_logger
from vllm.v1.request import Request, RequestStatus

logger = init_logger(__name__)


class FaultHandler:
    resume_requests: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: Exception) -> None:
        logger.warning(
            "[FT] Busy loop raised %s (resume_requests=%s).",
            type(exc).__name__,
            self.resume_requests,
        )
        if self.resume_requests:
            self._resume_running_requests()
        else:
            self._abort_all_requests()

    def _abort_all_requests(self) -> None:
        scheduler = self.engine.scheduler
        for request in scheduler.running:
            self._evict_unconfirmed_tail(request)
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    def _resume_running_requests(self) -> None:
        scheduler = self.engine.scheduler
        timestamp = time.monotonic()
        # Preempted requests recompute from their computed prefix on resume.
        while scheduler.running:
            request = scheduler.running.pop()
            scheduler._preempt_request(request, timestamp)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0

    def _evict_unconfirmed_tail(self, request: Request) -> None:
        kv_cache_manager = self.engine.scheduler.kv_cache_manager
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        block_ids: set[int] = set()
        for manager in kv_cache_manager.coordinator.single_type_managers:
            req_blocks = manager.req_to_blocks[request.request_id]
            block_ids.update(
                blk.block_id for blk in req_blocks[num_confirmed // manager.block_size :]
            )
        if block_ids:
            kv_cache_manager.evict_blocks(block_ids)
