# Intended: correct.
# Upstream-sentinel style abort with a per-request `_evict_dirty_tail` helper that walks every KV-cache group's `req_to_blocks` before `finish_requests(None, ...)`.
from __future__ import annotations

import logging

from vllm.v1.request import Request, RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    """Abort everything the engine holds after a failed busy-loop step.

    The failed step's blocks were cached at schedule time (``allocate_slots``)
    but their KV was never written, so the unconfirmed tail of every running
    request is dropped from the prefix cache before the blocks go back to the
    pool.
    """

    def __init__(self, engine):
        self.engine = engine

    @property
    def scheduler(self):
        return self.engine.scheduler

    def _evict_dirty_tail(self, request: Request) -> int:
        kv_cache_manager = self.scheduler.kv_cache_manager
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        dirty_block_ids: set[int] = set()
        for manager in kv_cache_manager.coordinator.single_type_managers:
            blocks = manager.req_to_blocks.get(request.request_id)
            if not blocks:
                continue
            first_dirty = num_confirmed // manager.block_size
            for block in blocks[first_dirty:]:
                if block.is_null:
                    continue
                dirty_block_ids.add(block.block_id)
        if dirty_block_ids:
            kv_cache_manager.evict_blocks(dirty_block_ids)
        return len(dirty_block_ids)

    def on_fault(self, exc: BaseException) -> None:
        logger.warning("Engine core step failed (%s); aborting all requests.", exc)
        num_evicted = 0
        for request in self.scheduler.running:
            if request.status == RequestStatus.RUNNING:
                num_evicted += self._evict_dirty_tail(request)
        logger.debug("Evicted %d unconfirmed KV blocks.", num_evicted)
        aborted = self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
