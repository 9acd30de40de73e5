# Intended: buggy: the resume path preempts with drop_stale_output=True (as reset_prefix_cache does), so the first good output frame after resume is dropped as stale.
# Idioms: abort/resume switch; eviction before the branch via get_block_ids and single_type_managers' block sizes; list rebuild of running; num_in_flight_tokens reset after preempt.
# switch: resume_after_fault
from __future__ import annotations

import time
from typing import Any

from vllm.logger import init_logger
from vllm.v1.request import Request, RequestStatus

logger = init_logger(__name__)


class FaultHandler:
    resume_after_fault: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: Exception) -> None:
        scheduler = self.engine.scheduler
        num_evicted = self._evict_unconfirmed_blocks(scheduler.running)
        logger.warning(
            "[FT] Busy loop raised %s; evicted %d unconfirmed blocks.",
            type(exc).__name__,
            num_evicted,
        )
        if not self.resume_after_fault:
            aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return

        preempted = list(scheduler.running)
        scheduler.running = []
        timestamp = time.monotonic()
        for request in reversed(preempted):
            # The failed step's output must not be delivered after resume.
            scheduler._preempt_request(request, timestamp, drop_stale_output=True)
            request.num_in_flight_tokens = 0

    def _evict_unconfirmed_blocks(self, requests: list[Request]) -> int:
        kv_cache_manager = self.engine.scheduler.kv_cache_manager
        managers = kv_cache_manager.coordinator.single_type_managers
        block_ids: set[int] = set()
        for request in requests:
            num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            per_group = kv_cache_manager.get_block_ids(request.request_id)
            for manager, ids in zip(managers, per_group):
                block_ids.update(ids[num_confirmed // manager.block_size :])
        if block_ids:
            kv_cache_manager.evict_blocks(block_ids)
        return len(block_ids)
