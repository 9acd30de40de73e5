# Intended: correct.
# Collects the dirty tail ids per request id before `finish_requests(request_ids, ...)` and calls `evict_blocks` only after the abort, from the ids gathered while the blocks were still owned.
from __future__ import annotations

import logging

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _collect_dirty_tail(self, request_id: str) -> list[int]:
        scheduler = self.engine.scheduler
        request = scheduler.requests[request_id]
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        dirty: list[int] = []
        coordinator = scheduler.kv_cache_manager.coordinator
        for group_id, manager in enumerate(coordinator.single_type_managers):
            blocks = manager.req_to_blocks.get(request_id)
            if blocks is None:
                continue
            start_idx = num_confirmed // manager.block_size
            dirty.extend(blk.block_id for blk in blocks[start_idx:] if not blk.is_null)
            logger.debug(
                "request %s group %d: %d unconfirmed block(s) from index %d",
                request_id, group_id, len(blocks) - start_idx, start_idx,
            )
        return dirty

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        request_ids = [req.request_id for req in scheduler.running]
        # Read the block tables now: finish_requests() pops req_to_blocks.
        dirty_block_ids: set[int] = set()
        for request_id in request_ids:
            dirty_block_ids.update(self._collect_dirty_tail(request_id))

        aborted = scheduler.finish_requests(request_ids, RequestStatus.FINISHED_ABORTED)
        # The freed blocks keep their hashes until evicted; drop the ones the
        # failed step never wrote.
        scheduler.kv_cache_manager.evict_blocks(dirty_block_ids)
        self.engine._send_abort_outputs(aborted)
