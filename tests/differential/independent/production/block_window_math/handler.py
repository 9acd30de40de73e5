# Intended: correct.
# Block arithmetic lives in a pure-function module (block_window.py) that maps the token range [confirmed, computed) to block indices; the handler aborts explicit request ids only after the scrub.
from __future__ import annotations

import logging
from typing import Any

import block_window
from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def _scrub(self, request: Any) -> int:
        kv = self.engine.scheduler.kv_cache_manager
        ids: set[int] = set()
        for group in kv.coordinator.single_type_managers:
            window = block_window.unconfirmed(
                request.num_computed_tokens, request.num_in_flight_tokens, group.block_size
            )
            held = group.req_to_blocks.get(request.request_id, [])
            ids |= {held[i].block_id for i in window if i < len(held) and not held[i].is_null}
        kv.evict_blocks(ids)
        return len(ids)

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        running_ids = [r.request_id for r in scheduler.running]
        scrubbed = sum(self._scrub(r) for r in scheduler.running)
        aborted = scheduler.finish_requests(list(scheduler.requests), RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
        logger.warning(f"fault in step of {running_ids}: {scrubbed} blocks scrubbed, {len(aborted)} aborted")
