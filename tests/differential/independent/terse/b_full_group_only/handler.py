# Intended: buggy: it evicts the unconfirmed tail only in the first KV-cache group (full attention), so with a second group (sliding window) that group's dirty blocks stay in the prefix cache.
# Idioms: star-unpacking the managers tuple into `full, *_`, set comprehension straight into evict_blocks, attrgetter list into finish_requests, abort only.
from operator import attrgetter

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s = self.engine.scheduler
        full, *_ = s.kv_cache_manager.coordinator.single_type_managers
        s.kv_cache_manager.evict_blocks({b.block_id for r in s.running
                                         for b in full.req_to_blocks.get(r.request_id, ())
                                         [(r.num_computed_tokens - r.num_in_flight_tokens) // full.block_size:]
                                         if not b.is_null})
        self.engine._send_abort_outputs(
            s.finish_requests([*map(attrgetter("request_id"), s.running)], RequestStatus.FINISHED_ABORTED))
