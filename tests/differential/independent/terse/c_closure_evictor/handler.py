# Intended: correct.
# Idioms: closure factory returning an evictor that passes its input through, max() clamp inside a slice, early return of the abort expression, in-flight counter zeroed before the preempt so the stale counter is copied as zero.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus


def tail_evictor(kv):
    mgrs = kv.coordinator.single_type_managers

    def evict(reqs):
        kv.evict_blocks({b.block_id for r in reqs for m in mgrs
                         for b in m.req_to_blocks.get(r.request_id, ())
                         [max(r.num_computed_tokens - r.num_in_flight_tokens, 0) // m.block_size:] if not b.is_null})
        return reqs

    return evict


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s = self.engine.scheduler
        reqs = tail_evictor(s.kv_cache_manager)(s.running[:])
        if not self.RESUME:
            return self.engine._send_abort_outputs(
                s.finish_requests({r.request_id for r in reqs}, RequestStatus.FINISHED_ABORTED))
        del s.running[:]
        ts = time.monotonic()
        for r in reversed(reqs):
            r.num_in_flight_tokens = 0
            s._preempt_request(r, ts)
