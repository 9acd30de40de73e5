# Intended: buggy: the resume callback preempts with drop_stale_output=True, which marks the request to drop its next output frame as stale; the failed step's frame never arrives, so the first good token after resume is dropped.
# Per-request callbacks are registered in a list in __init__ (evict the tail, then requeue) and run in order in on_fault.
import time


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.callbacks = [self._evict_unconfirmed, self._requeue]

    def _evict_unconfirmed(self, sched, req):
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        kv = sched.kv_cache_manager
        ids = set()
        for mgr in kv.coordinator.single_type_managers:
            ids |= {b.block_id for b in mgr.req_to_blocks.get(req.request_id, ())[confirmed // mgr.block_size:] if not b.is_null}
        kv.evict_blocks(ids)

    def _requeue(self, sched, req):
        sched.running.remove(req)
        # Whatever the failed step produced must not reach the client.
        sched._preempt_request(req, time.monotonic(), drop_stale_output=True)
        req.num_in_flight_tokens = 0

    def on_fault(self, exc):
        sched = self.engine.scheduler
        for req in reversed(list(sched.running)):
            for callback in self.callbacks:
                callback(sched, req)
