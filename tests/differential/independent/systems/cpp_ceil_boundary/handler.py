# Intended: buggy: rounds the confirmed boundary up (ceil division) instead of down, so the partially confirmed block that the failed step filled is never evicted before the abort.
# Idioms: C++-style ceil_div static utility, constexpr-like module constants, preallocated output buffer, while-index loops
from vllm.v1.request import RequestStatus

ABORT = RequestStatus.FINISHED_ABORTED
RESERVE_PER_REQUEST = 4


class Blocks:
    @staticmethod
    def ceil_div(a: int, b: int) -> int:
        return (a + b - 1) // b


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        mgrs = sched.kv_cache_manager.coordinator.single_type_managers
        cap = len(sched.running) * len(mgrs) * RESERVE_PER_REQUEST
        buf = [0] * cap
        used = 0
        for m in mgrs:
            for r in sched.running:
                row = m.req_to_blocks.get(r.request_id, ())
                start = Blocks.ceil_div(r.num_computed_tokens - r.num_in_flight_tokens, m.block_size)
                p = start
                while p < len(row):
                    if not row[p].is_null:
                        if used == len(buf):
                            buf.extend([0] * cap)
                        buf[used] = row[p].block_id
                        used += 1
                    p += 1
        if used:
            sched.kv_cache_manager.evict_blocks(set(buf[:used]))
        self.engine._send_abort_outputs(sched.finish_requests(None, ABORT))
