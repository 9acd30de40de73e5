# Intended: buggy: on resume it zeroes num_in_flight_tokens after the preempt but leaves num_stale_output_tokens, which the preempt just set to the lost step's token count; that stale output never arrives, so the scheduler skips the requeued request forever (hang).
# Dirty ids are grouped per request in a collections.defaultdict(set), evicted in a try block, and the abort-or-requeue happens in the finally clause.
# switch: resume
from __future__ import annotations

import logging
import time
from collections import defaultdict
from typing import Any

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    resume: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    @property
    def scheduler(self) -> Any:
        return self.engine.scheduler

    def _dirty_by_request(self, requests: list[Any]) -> defaultdict[str, set[int]]:
        dirty: defaultdict[str, set[int]] = defaultdict(set)
        for manager in self.scheduler.kv_cache_manager.coordinator.single_type_managers:
            for request in requests:
                start = (request.num_computed_tokens - request.num_in_flight_tokens) // manager.block_size
                for block in manager.req_to_blocks.get(request.request_id, [])[start:]:
                    if block.is_null:
                        continue
                    dirty[request.request_id].add(block.block_id)
        return dirty

    def on_fault(self, exc: BaseException) -> None:
        faulted = list(self.scheduler.running)
        try:
            for request_id, ids in self._dirty_by_request(faulted).items():
                logger.debug(f"{request_id}: evicting {sorted(ids)}")
                self.scheduler.kv_cache_manager.evict_blocks(ids)
        finally:
            if self.resume:
                self._requeue(faulted)
            else:
                self.engine._send_abort_outputs(
                    self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
                )

    def _requeue(self, faulted: list[Any]) -> None:
        now = time.monotonic()
        self.scheduler.running = []
        for request in reversed(faulted):
            self.scheduler._preempt_request(request, now)
            # Nothing is in flight any more; the preempt already accounted for
            # the lost tokens as stale output.
            request.num_in_flight_tokens = 0
        logger.warning(f"requeued {len(faulted)} requests")
