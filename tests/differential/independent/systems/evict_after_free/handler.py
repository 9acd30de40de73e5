# Intended: buggy: aborts first and collects the tail in a finally block afterwards, when finish_requests has already popped req_to_blocks, so nothing is evicted.
# Idioms: try/finally cleanup, RAII-like ordering, multiple return values, enumerate
from vllm.v1.request import RequestStatus


def boundaries(batch):
    ids = [x.request_id for x in batch]
    cuts = [x.num_computed_tokens - x.num_in_flight_tokens for x in batch]
    return ids, cuts


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        ids, cuts = boundaries(list(sched.running))
        try:
            done = sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(done)
        finally:
            junk = set()
            for grp in sched.kv_cache_manager.coordinator.single_type_managers:
                for k, rid in enumerate(ids):
                    row = grp.req_to_blocks.get(rid, ())
                    for blk in row[cuts[k] // grp.block_size:]:
                        if not blk.is_null:
                            junk.add(blk.block_id)
            if junk:
                sched.kv_cache_manager.evict_blocks(junk)
