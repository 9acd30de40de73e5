# Intended: buggy: the dirty tail is looked up through `kv_cache_manager.get_block_ids(request_id)` only after `finish_requests` has freed the requests, when their block tables are already gone, so nothing is evicted.
# Abort-then-clean-up handler keyed by request ids with `self.scheduler.requests` lookups and an explicit id list for `finish_requests`.
from __future__ import annotations

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        boundaries: dict[str, int] = {}
        for req_id in [req.request_id for req in scheduler.running]:
            request = scheduler.requests[req_id]
            boundaries[req_id] = request.num_computed_tokens - request.num_in_flight_tokens

        aborted = scheduler.finish_requests(list(boundaries), RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)

        # Now that nothing references them, drop the blocks the failed step
        # cached from the prefix cache.
        kv_cache_manager = scheduler.kv_cache_manager
        managers = kv_cache_manager.coordinator.single_type_managers
        dirty: set[int] = set()
        for req_id, num_confirmed in boundaries.items():
            for manager, block_ids in zip(managers, kv_cache_manager.get_block_ids(req_id)):
                dirty.update(block_ids[num_confirmed // manager.block_size:])
        kv_cache_manager.evict_blocks(dirty)
