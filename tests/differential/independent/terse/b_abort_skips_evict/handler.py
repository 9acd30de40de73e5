# Intended: buggy: only the resume path evicts the unconfirmed tail; the abort path finishes the requests without evicting, assuming freed blocks are harmless, yet their hashes stay in the prefix cache.
# Idioms: conditional expression selecting a bound method, walrus in the resume loop, generator passed straight into set(), chained counter reset.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        (self._resume if self.RESUME else self._abort)(self.engine.scheduler)

    def _abort(self, s):
        self.engine._send_abort_outputs(s.finish_requests(None, RequestStatus.FINISHED_ABORTED))

    def _resume(self, s):
        kv = s.kv_cache_manager
        kv.evict_blocks(set(b.block_id for r in s.running for m in kv.coordinator.single_type_managers
                            for b in m.req_to_blocks.get(r.request_id, ())[(r.num_computed_tokens - r.num_in_flight_tokens) // m.block_size:]
                            if not b.is_null))
        ts = time.monotonic()
        while s.running:
            s._preempt_request(r := s.running.pop(), ts)
            r.num_in_flight_tokens = r.num_stale_output_tokens = 0
