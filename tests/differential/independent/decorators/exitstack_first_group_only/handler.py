# Intended: buggy: the tail is evicted only in the first KV-cache group (single_type_managers[0]); with a hybrid model (full + sliding window) the second group's dirty blocks stay cached.
# contextlib.ExitStack callbacks run last-in-first-out: the abort is registered first so the per-request eviction callbacks run before it.
import contextlib

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def _abort(self):
        sched = self.engine.scheduler
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))

    def _tail(self, req):
        kv = self.engine.scheduler.kv_cache_manager
        mgr = kv.coordinator.single_type_managers[0]
        bs = mgr.block_size
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        return {b.block_id for b in mgr.req_to_blocks.get(req.request_id, [])[confirmed // bs:] if not b.is_null}

    def on_fault(self, exc):
        sched = self.engine.scheduler
        with contextlib.ExitStack() as cleanup:
            cleanup.callback(self._abort)
            for req in sched.running:
                cleanup.callback(sched.kv_cache_manager.evict_blocks, self._tail(req))
