# Intended: buggy: the tail's blocks are read from req_to_blocks after finish_requests has freed them (the entry is gone), so nothing is evicted.
# Idioms: abort only; eviction over the list returned by finish_requests; private helper per request; every group's req_to_blocks.
from __future__ import annotations

from typing import Any

from vllm.logger import init_logger
from vllm.v1.request import Request, RequestStatus

logger = init_logger(__name__)


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: Exception) -> None:
        scheduler = self.engine.scheduler
        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        # Only the aborted requests can hold blocks of the failed step.
        for request in aborted:
            self._evict_unconfirmed_blocks(request)
        self.engine._send_abort_outputs(aborted)
        logger.warning(
            "[FT] Busy loop raised %s. Aborted %d requests.",
            type(exc).__name__,
            len(aborted),
        )

    def _evict_unconfirmed_blocks(self, request: Request) -> None:
        kv_cache_manager = self.engine.scheduler.kv_cache_manager
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        block_ids: set[int] = set()
        for manager in kv_cache_manager.coordinator.single_type_managers:
            req_blocks = manager.req_to_blocks[request.request_id]
            start = num_confirmed // manager.block_size
            block_ids.update(block.block_id for block in req_blocks[start:])
        if block_ids:
            kv_cache_manager.evict_blocks(block_ids)
