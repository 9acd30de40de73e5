# Intended: correct.
# Uses `kv_cache_manager.get_block_ids(request_id)` zipped with the coordinator's managers for per-group block sizes and a `cdiv` end bound; abort vs resume is chosen by `isinstance(exc, ...)` on the failure type.
from __future__ import annotations

import time

from vllm.utils.math_utils import cdiv
from vllm.v1.request import Request, RequestStatus

# Transient transport failures: the workers are alive, the requests can resume.
_RESUMABLE_ERRORS = (TimeoutError, ConnectionError)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _unconfirmed_block_ids(self, request: Request) -> set[int]:
        kv_cache_manager = self.engine.scheduler.kv_cache_manager
        managers = kv_cache_manager.coordinator.single_type_managers
        num_computed = request.num_computed_tokens
        num_confirmed = num_computed - request.num_in_flight_tokens
        block_ids: set[int] = set()
        for manager, group_block_ids in zip(
            managers, kv_cache_manager.get_block_ids(request.request_id)
        ):
            block_size = manager.block_size
            # Blocks [first, last) hold the tokens of the lost step; `last` is
            # rounded up because a partially written block is dirty too.
            first = num_confirmed // block_size
            last = min(cdiv(num_computed, block_size), len(group_block_ids))
            block_ids.update(group_block_ids[first:last])
        return block_ids

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        dirty: set[int] = set()
        for request in scheduler.running:
            dirty |= self._unconfirmed_block_ids(request)
        scheduler.kv_cache_manager.evict_blocks(dirty)

        if isinstance(exc, _RESUMABLE_ERRORS):
            timestamp = time.monotonic()
            for request in reversed(scheduler.running):
                scheduler._preempt_request(request, timestamp)
                request.num_in_flight_tokens = 0
                request.num_stale_output_tokens = 0
            scheduler.running.clear()
            return

        request_ids = [req.request_id for req in scheduler.running]
        aborted = scheduler.finish_requests(request_ids, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
