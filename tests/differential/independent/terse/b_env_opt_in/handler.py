# Intended: buggy: the tail eviction is behind an opt-in environment variable that is off by default, so with defaults the handler aborts every request and leaves the dirty blocks in the prefix cache.
# Idioms: module-level flag from os.environ with a conditional expression, short-circuit `and` calling evict_blocks, nested generator in a set constructor, abort only.
import os

from vllm.v1.request import RequestStatus

EVICT_DIRTY = os.environ.get("VLLM_FT_EVICT_DIRTY_KV", "0").lower() in ("1", "true", "yes")


class FaultHandler:
    def __init__(self, engine, evict=None):
        self.engine, self.evict = engine, EVICT_DIRTY if evict is None else evict

    def on_fault(self, exc):
        s = self.engine.scheduler
        kv = s.kv_cache_manager
        self.evict and kv.evict_blocks(set(b.block_id for r in s.running for m in kv.coordinator.single_type_managers
                                           for b in m.req_to_blocks.get(r.request_id, ())
                                           [(r.num_computed_tokens - r.num_in_flight_tokens) // m.block_size:]
                                           if not b.is_null))
        self.engine._send_abort_outputs(s.finish_requests(None, RequestStatus.FINISHED_ABORTED))
