"""Base class for fault handlers: subclasses decide how requests are released."""
from vllm.v1.request import RequestStatus


class TailEvictionMixin:
    """Evicts the prefix-cache entries of blocks the failed step was writing."""

    def _dirty_block_ids(self, scheduler, request):
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        coordinator = scheduler.kv_cache_manager.coordinator
        return {
            blk.block_id
            for mgr in coordinator.single_type_managers
            for blk in mgr.req_to_blocks.get(request.request_id, ())[confirmed // mgr.block_size:]
            if not blk.is_null
        }

    def evict_dirty_tails(self, scheduler):
        dirty = set()
        for request in scheduler.running:
            dirty.update(self._dirty_block_ids(scheduler, request))
        scheduler.kv_cache_manager.evict_blocks(dirty)


class BaseFaultHandler(TailEvictionMixin):
    def __init__(self, engine):
        self.engine = engine

    def release(self, scheduler):
        raise NotImplementedError

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        self.evict_dirty_tails(scheduler)
        self.release(scheduler)


def abort_all(scheduler):
    return scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
