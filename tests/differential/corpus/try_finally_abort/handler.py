# Intended: correct.
# Evicts the dirty tails inside try and aborts all requests in finally, so requests are always released even if eviction fails, and eviction (when it works) precedes the free.
import logging

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _evict(self, scheduler):
        kv_cache_manager = scheduler.kv_cache_manager
        block_ids: set[int] = set()
        for request in scheduler.running:
            boundary = request.num_computed_tokens - request.num_in_flight_tokens
            for single_type_manager in kv_cache_manager.coordinator.single_type_managers:
                blocks = single_type_manager.req_to_blocks.get(request.request_id)
                if not blocks:
                    continue
                start = boundary // single_type_manager.block_size
                block_ids.update(b.block_id for b in blocks[start:] if not b.is_null)
        kv_cache_manager.evict_blocks(block_ids)
        return len(block_ids)

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        try:
            n = self._evict(scheduler)
            logger.info("evicted %d unconfirmed KV blocks after %r", n, exc)
        finally:
            aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
