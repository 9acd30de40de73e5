# Intended: correct.
# Idioms: functools.reduce with operator.or_ over per-(request, group) set comprehensions, short-circuit `and` as a guard, finish_requests(None) to abort everything.
from functools import reduce
from operator import or_

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s = self.engine.scheduler
        kv = s.kv_cache_manager
        dirty = reduce(or_, ({b.block_id for b in m.req_to_blocks.get(r.request_id, [])
                              [(r.num_computed_tokens - r.num_in_flight_tokens) // m.block_size:] if not b.is_null}
                             for r in s.running for m in kv.coordinator.single_type_managers), set())
        dirty and kv.evict_blocks(dirty)
        self.engine._send_abort_outputs(s.finish_requests(None, RequestStatus.FINISHED_ABORTED))
