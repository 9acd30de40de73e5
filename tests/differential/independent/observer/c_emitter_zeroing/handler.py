# Intended: correct.
# Idioms: Node-style emitter with on/once/off, per-request "request:fault" events, a once-listener for the final "drain" event, KV zeroing recorded for the tail when the model needs it (in addition to eviction).
"""Abort-on-fault handler on an event emitter.

For each running request the handler emits ``request:fault``: one listener
records the tail for zeroing (only when the scheduler needs KV zeroing, from
a start aligned to every group's block size), another evicts the tail from
the prefix cache.  Then ``drain`` aborts everything and notifies clients.
"""

import math

from vllm.v1.request import RequestStatus

from emitter import Emitter


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.emitter = Emitter()
        self.emitter.on("request:fault", self._record_for_zeroing)
        self.emitter.on("request:fault", self._evict_tail)

    @property
    def _kv(self):
        return self.engine.scheduler.kv_cache_manager

    def _record_for_zeroing(self, request):
        if not getattr(self.engine.scheduler, "needs_kv_cache_zeroing", False):
            return
        managers = self._kv.coordinator.single_type_managers
        align = math.lcm(*(m.block_size for m in managers))
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        self._kv.record_blocks_for_zeroing(request.request_id, confirmed // align * align)

    def _evict_tail(self, request):
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        dirty = set()
        for mgr in self._kv.coordinator.single_type_managers:
            blocks = mgr.req_to_blocks.get(request.request_id) or []
            dirty |= {b.block_id for b in blocks[confirmed // mgr.block_size:] if not b.is_null}
        self._kv.evict_blocks(dirty)

    def _drain(self, requests):
        aborted = self.engine.scheduler.finish_requests(
            [r.request_id for r in requests], RequestStatus.FINISHED_ABORTED
        )
        self.engine._send_abort_outputs(aborted)

    def on_fault(self, exc):
        running = list(self.engine.scheduler.running)
        for request in running:
            self.emitter.emit("request:fault", request)
        self.emitter.once("drain", self._drain)
        self.emitter.emit("drain", running)
