# Intended: buggy: only KV-cache group 0 (`get_block_ids(request_id)[0]`, `self.scheduler.block_size`) is cleaned, so on a hybrid model the sliding-window group's unconfirmed tail stays in the prefix cache.
# Compact abort handler in the style of the scheduler's KV-load-failure path, reading one block-id list per request.
from __future__ import annotations

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        block_size = scheduler.block_size
        blocks_to_evict: set[int] = set()
        for request in scheduler.running:
            req_block_ids = scheduler.kv_cache_manager.get_block_ids(request.request_id)[0]
            num_confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            blocks_to_evict.update(req_block_ids[num_confirmed // block_size:])
        scheduler.kv_cache_manager.evict_blocks(blocks_to_evict)

        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
