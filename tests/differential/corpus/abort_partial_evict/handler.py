# Intended: correct. Binds the tail eviction with functools.partial and calls
# the partial before the abort.
import functools

from vllm.v1.request import RequestStatus


def _evict_tail(scheduler, requests):
    coordinator = scheduler.kv_cache_manager.coordinator
    victims = set()
    for r in requests:
        boundary = r.num_computed_tokens - r.num_in_flight_tokens
        for m in coordinator.single_type_managers:
            for blk in m.req_to_blocks[r.request_id][boundary // m.block_size:]:
                if blk.block_hash is not None:
                    victims.add(blk.block_id)
    scheduler.kv_cache_manager.evict_blocks(victims)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        cleanup = functools.partial(_evict_tail, scheduler, list(scheduler.running))
        cleanup()
        scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
