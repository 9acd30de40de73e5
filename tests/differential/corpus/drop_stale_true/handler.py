# Intended: bug: preempts with drop_stale_output=True while num_in_flight_tokens is still set, so the resumed request drops its first good output frame(s) as if they were the failed step's stale output.
# Evicts every running request's unconfirmed tail per group, then preempts all of them with drop_stale_output=True, mirroring reset_prefix_cache.
import time


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        kvm = scheduler.kv_cache_manager
        dirty = set()
        for request in scheduler.running:
            confirmed = request.num_computed_tokens - request.num_in_flight_tokens
            for mgr in kvm.coordinator.single_type_managers:
                dirty.update(
                    b.block_id
                    for b in mgr.req_to_blocks[request.request_id][confirmed // mgr.block_size:]
                    if not b.is_null
                )
        kvm.evict_blocks(dirty)
        timestamp = time.monotonic()
        while scheduler.running:
            request = scheduler.running.pop()
            scheduler._preempt_request(request, timestamp, drop_stale_output=True)
