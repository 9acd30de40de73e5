# Intended: buggy: it treats only requests still in prefill as dirty, assuming a one-token decode step cannot fill a block, so a decode step that completes a block leaves that block cached.
# Idioms: filter with a lambda predicate, any() as an early exit, starred set literal from a generator, operator.attrgetter over two attributes unpacked into operator.sub, abort only.
from operator import attrgetter, sub

from vllm.v1.request import RequestStatus

_in_prefill = lambda r: r.num_computed_tokens <= r.num_prompt_tokens  # noqa: E731
_edge = attrgetter("num_computed_tokens", "num_in_flight_tokens")


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s = self.engine.scheduler
        kv = s.kv_cache_manager
        if any(map(_in_prefill, s.running)):
            kv.evict_blocks({*(b.block_id for r in filter(_in_prefill, s.running)
                               for m in kv.coordinator.single_type_managers
                               for b in m.req_to_blocks.get(r.request_id, ())[sub(*_edge(r)) // m.block_size:]
                               if not b.is_null)})
        self.engine._send_abort_outputs(
            s.finish_requests([r.request_id for r in s.running], RequestStatus.FINISHED_ABORTED))
