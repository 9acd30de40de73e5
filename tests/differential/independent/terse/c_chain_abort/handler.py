# Intended: correct.
# Idioms: one set comprehension over itertools.chain.from_iterable of per-(request, group) tail slices fed straight into evict_blocks, operator.attrgetter mapped into finish_requests, abort only.
from itertools import chain
from operator import attrgetter

from vllm.v1.request import RequestStatus

_rid = attrgetter("request_id")


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s = self.engine.scheduler
        kv = s.kv_cache_manager
        kv.evict_blocks({b.block_id for b in chain.from_iterable(
            m.req_to_blocks.get(r.request_id, ())[(r.num_computed_tokens - r.num_in_flight_tokens) // m.block_size:]
            for r in s.running for m in kv.coordinator.single_type_managers) if not b.is_null})
        self.engine._send_abort_outputs(s.finish_requests(map(_rid, s.running), RequestStatus.FINISHED_ABORTED))
