# Intended: correct.
# Idioms: abort/resume switch; get_block_ids per request zipped with each manager's block_size; one batched evict_blocks before either path; running list rebuilt then preempted in reverse.
# switch: resume_on_fault
from __future__ import annotations

import time
from typing import Any

from vllm.logger import init_logger
from vllm.v1.request import Request, RequestStatus

logger = init_logger(__name__)


class FaultHandler:
    # When True, running requests are preempted and resume after recovery;
    # otherwise every request is aborted.
    resume_on_fault: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: Exception) -> None:
        scheduler = self.engine.scheduler
        self._evict_failed_step_blocks(scheduler)
        if self.resume_on_fault:
            self._preempt_running_requests(scheduler)
        else:
            self._abort_all_requests(scheduler)
        logger.warning(
            "[FT] Busy loop raised %s; requests %s.",
            type(exc).__name__,
            "preempted" if self.resume_on_fault else "aborted",
        )

    def _evict_failed_step_blocks(self, scheduler: Any) -> None:
        kv_cache_manager = scheduler.kv_cache_manager
        block_sizes = [
            manager.block_size
            for manager in kv_cache_manager.coordinator.single_type_managers
        ]
        to_evict: set[int] = set()
        for request in scheduler.running:
            num_confirmed_tokens = (
                request.num_computed_tokens - request.num_in_flight_tokens
            )
            group_block_ids = kv_cache_manager.get_block_ids(request.request_id)
            for block_size, block_ids in zip(block_sizes, group_block_ids, strict=True):
                to_evict.update(block_ids[num_confirmed_tokens // block_size :])
        if to_evict:
            kv_cache_manager.evict_blocks(to_evict)

    def _preempt_running_requests(self, scheduler: Any) -> None:
        preempted: list[Request] = list(scheduler.running)
        scheduler.running = []
        timestamp = time.monotonic()
        for request in reversed(preempted):
            scheduler._preempt_request(request, timestamp)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0

    def _abort_all_requests(self, scheduler: Any) -> None:
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
