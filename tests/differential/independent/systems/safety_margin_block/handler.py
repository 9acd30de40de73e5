# Intended: buggy: starts evicting one block before the first unconfirmed block "for safety", so a clean, confirmed block of each decoding request is evicted too (over-eviction) before the abort.
# Idioms: module-level constants, max() clamping, bit-mask check on block alignment, while-index loops, preallocated list
from vllm.v1.request import RequestStatus

SAFETY_BLOCKS = 1
ABORT = RequestStatus.FINISHED_ABORTED


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        running = list(sched.running)
        out = []
        for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
            bs = mgr.block_size
            for r in running:
                row = mgr.req_to_blocks.get(r.request_id, ())
                good = r.num_computed_tokens - r.num_in_flight_tokens
                start = max(0, good // bs - SAFETY_BLOCKS)
                j = start
                while j < len(row):
                    if not row[j].is_null:
                        out.append(row[j].block_id)
                    j += 1
        if out:
            sched.kv_cache_manager.evict_blocks(set(out))
        self.engine._send_abort_outputs(sched.finish_requests(None, ABORT))
