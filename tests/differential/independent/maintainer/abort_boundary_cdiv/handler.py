# Intended: buggy: the tail starts at cdiv(confirmed, block_size) instead of confirmed // block_size, so the partly confirmed block that the failed step filled stays cached.
# Idioms: abort only; cdiv from vllm.utils.math_utils; private helper method returning block ids; req_to_blocks of every group.
from __future__ import annotations

from typing import Any

from vllm.logger import init_logger
from vllm.utils.math_utils import cdiv
from vllm.v1.request import Request, RequestStatus

logger = init_logger(__name__)


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: Exception) -> None:
        scheduler = self.engine.scheduler
        block_ids: set[int] = set()
        for request in scheduler.running:
            block_ids |= self._unconfirmed_block_ids(request)
        if block_ids:
            scheduler.kv_cache_manager.evict_blocks(block_ids)

        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        logger.warning(
            "[FT] Busy loop raised %s. Aborted %d requests.",
            type(exc).__name__,
            len(aborted),
        )

    def _unconfirmed_block_ids(self, request: Request) -> set[int]:
        coordinator = self.engine.scheduler.kv_cache_manager.coordinator
        num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        block_ids: set[int] = set()
        for manager in coordinator.single_type_managers:
            # Blocks from here on hold no confirmed token.
            first_unconfirmed = cdiv(num_confirmed, manager.block_size)
            req_blocks = manager.req_to_blocks[request.request_id]
            block_ids.update(block.block_id for block in req_blocks[first_unconfirmed:])
        return block_ids
