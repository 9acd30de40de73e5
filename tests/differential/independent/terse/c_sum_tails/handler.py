# Intended: correct.
# Idioms: sum(generator of lists, []) to flatten per-group tails, star-unpacking into a set literal, module-level helper, abort only.
from vllm.v1.request import RequestStatus


def unconfirmed_tail(kv, r):
    c = r.num_computed_tokens - r.num_in_flight_tokens
    return sum(([b.block_id for b in m.req_to_blocks.get(r.request_id, [])[c // m.block_size:] if not b.is_null]
                for m in kv.coordinator.single_type_managers), [])


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s = self.engine.scheduler
        kv, ids = s.kv_cache_manager, [r.request_id for r in s.running]
        kv.evict_blocks({*sum((unconfirmed_tail(kv, r) for r in s.running), [])})
        self.engine._send_abort_outputs(s.finish_requests(ids, RequestStatus.FINISHED_ABORTED))
