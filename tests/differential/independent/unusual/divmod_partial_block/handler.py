# Intended: buggy: the boundary comes from num_computed_tokens alone (divmod into full blocks and a remainder), ignoring num_in_flight_tokens, so only the block past the last full one is treated as dirty and the full blocks the lost step wrote stay cached.
# Splits the computed length with divmod and drains a `while queue:` of requests popped from a deque, with keyword-only helper parameters.
from collections import deque

from vllm.v1.request import RequestStatus


def partial_tail(blocks, *, num_tokens, block_size):
    full, rem = divmod(num_tokens, block_size)
    tail = blocks[full:full + 1] if rem else blocks[full:]
    return [b.block_id for b in tail if not b.is_null]


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        queue = deque(sched.running)
        dirty = set()
        while queue:
            req = queue.popleft()
            for mgr in kv.coordinator.single_type_managers:
                dirty.update(
                    partial_tail(
                        mgr.req_to_blocks.get(req.request_id, []),
                        num_tokens=req.num_computed_tokens,
                        block_size=mgr.block_size,
                    )
                )
        kv.evict_blocks(dirty)
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
