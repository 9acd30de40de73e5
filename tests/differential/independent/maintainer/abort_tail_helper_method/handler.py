# Intended: correct.
# Idioms: abort only; private helper method per running request; req_to_blocks of every single_type_manager; evict before finish_requests.
from __future__ import annotations

from typing import Any

from vllm.logger import init_logger
from vllm.v1.request import Request, RequestStatus

logger = init_logger(__name__)


class FaultHandler:
    """Abort every request after a failed data-parallel step.

    The failed step's blocks were cached when it was scheduled; they are
    evicted from the prefix cache before the requests are aborted, so that
    no later request gets a prefix hit on KV that was never computed.
    """

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: Exception) -> None:
        logger.warning(
            "[FT] Busy loop raised %s. Aborting all requests.", type(exc).__name__
        )
        scheduler = self.engine.scheduler
        for request in scheduler.running:
            self._evict_unconfirmed_blocks(request)

        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

    def _evict_unconfirmed_blocks(self, request: Request) -> None:
        """Evict the blocks the failed step was writing for ``request``.

        Tokens in [num_computed_tokens - num_in_flight_tokens,
        num_computed_tokens) were scheduled, but their output never came
        back. Every block from the one holding the first such token onward
        may hold garbage, in each KV cache group.
        """
        kv_cache_manager = self.engine.scheduler.kv_cache_manager
        num_confirmed_tokens = (
            request.num_computed_tokens - request.num_in_flight_tokens
        )
        block_ids: set[int] = set()
        for manager in kv_cache_manager.coordinator.single_type_managers:
            blocks = manager.req_to_blocks.get(request.request_id)
            if not blocks:
                continue
            first_unconfirmed = num_confirmed_tokens // manager.block_size
            block_ids.update(block.block_id for block in blocks[first_unconfirmed:])

        if block_ids:
            kv_cache_manager.evict_blocks(block_ids)
