# Intended: correct.
# Idioms: abort only; running requests found via scheduler.requests and RequestStatus.RUNNING; per-group block size read from kv_cache_config's kv_cache_spec; enumerate over get_block_ids.
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
        running = [
            request
            for request in scheduler.requests.values()
            if request.status == RequestStatus.RUNNING
        ]
        block_ids = self._collect_unconfirmed_block_ids(scheduler, running)
        if block_ids:
            scheduler.kv_cache_manager.evict_blocks(block_ids)

        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        logger.warning(
            "[FT] Busy loop raised %s. Aborted %d requests, evicted %d blocks.",
            type(exc).__name__,
            len(aborted),
            len(block_ids),
        )

    @staticmethod
    def _collect_unconfirmed_block_ids(
        scheduler: Any, requests: list[Request]
    ) -> set[int]:
        kv_cache_manager = scheduler.kv_cache_manager
        kv_cache_groups = scheduler.kv_cache_config.kv_cache_groups
        block_ids: set[int] = set()
        for request in requests:
            num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            group_block_ids = kv_cache_manager.get_block_ids(request.request_id)
            for group_id, ids in enumerate(group_block_ids):
                block_size = kv_cache_groups[group_id].kv_cache_spec.block_size
                block_ids.update(ids[num_confirmed // block_size :])
        return block_ids
