# Intended: buggy: the first dirty block is computed by rounding the confirmed token count up (cdiv) instead of down, so a block that was only partly confirmed before the failed step filled it is treated as clean and keeps its hash (decode faults leave it cached).
# itertools.chain.from_iterable over per-group tails from a block_math helper module, and a properties-based handler with a graceful switch.
# switch: graceful
from __future__ import annotations

import itertools
import logging
import time
from typing import Any

from block_math import tail_slice
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.graceful = False

    @property
    def scheduler(self) -> Any:
        return self.engine.scheduler

    @property
    def kv_manager(self) -> Any:
        return self.scheduler.kv_cache_manager

    def _unconfirmed_ids(self, request: Any) -> set[int]:
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        tails = itertools.chain.from_iterable(
            g.req_to_blocks.get(request.request_id, [])[tail_slice(confirmed, g.block_size)]
            for g in self.kv_manager.coordinator.single_type_managers
        )
        return {b.block_id for b in tails if not b.is_null}

    def on_fault(self, exc: BaseException) -> None:
        faulted = list(self.scheduler.running)
        for request in faulted:
            if ids := self._unconfirmed_ids(request):
                self.kv_manager.evict_blocks(ids)
        if not self.graceful:
            self.engine._send_abort_outputs(self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED))
            logger.warning(f"aborted {len(faulted)} requests after {exc!r}")
            return
        now = time.monotonic()
        for request in reversed(faulted):
            self.scheduler.running.remove(request)
            self.scheduler._preempt_request(request, now)
            request.num_in_flight_tokens = request.num_stale_output_tokens = 0
        logger.warning(f"requeued {len(faulted)} requests after {exc!r}")
