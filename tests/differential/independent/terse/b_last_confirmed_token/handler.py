# Intended: buggy: it starts the tail at the block of the last confirmed token, (confirmed - 1) // block_size, which is -1 when nothing is confirmed (a failed prefill), so the slice keeps only the last, partial block and every full dirty block stays cached.
# Idioms: conditional-free arithmetic boundary inside a nested comprehension, chain.from_iterable, tuple unpacking of engine and scheduler, abort only.
from itertools import chain

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        e, s = self.engine, self.engine.scheduler
        kv = s.kv_cache_manager
        kv.evict_blocks({b.block_id for b in chain.from_iterable(
            m.req_to_blocks.get(r.request_id, ())[(r.num_computed_tokens - r.num_in_flight_tokens - 1) // m.block_size:]
            for r in s.running for m in kv.coordinator.single_type_managers) if not b.is_null})
        e._send_abort_outputs(s.finish_requests([r.request_id for r in s.running], RequestStatus.FINISHED_ABORTED))
