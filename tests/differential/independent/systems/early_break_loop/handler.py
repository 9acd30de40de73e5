# Intended: buggy: the index loop over running requests breaks as soon as one request yielded dirty blocks, so the remaining requests' tails stay cached before the abort.
# Idioms: while i < n index loop with break flag, guard clauses, module constant, set then list()
from vllm.v1.request import RequestStatus

STOP_AFTER_HIT = True


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        mgrs = sched.kv_cache_manager.coordinator.single_type_managers
        pool = set()
        i, n = 0, len(sched.running)
        while i < n:
            cur = sched.running[i]
            i += 1
            base = cur.num_computed_tokens - cur.num_in_flight_tokens
            hit = False
            for m in mgrs:
                row = m.req_to_blocks.get(cur.request_id, ())
                for blk in row[base // m.block_size:]:
                    if blk.is_null:
                        continue
                    pool.add(blk.block_id)
                    hit = True
            if hit and STOP_AFTER_HIT:
                break
        if pool:
            sched.kv_cache_manager.evict_blocks(set(list(pool)))
        self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
