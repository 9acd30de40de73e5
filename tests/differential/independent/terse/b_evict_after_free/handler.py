# Intended: buggy: it aborts or preempts first and only then reads each request's blocks from req_to_blocks, which the free already popped, so it evicts nothing on either path.
# Idioms: list snapshot of running, lambda table for the two paths, set().union over a generator of per-group set comprehensions, chained assignment resetting counters.
# switch: RESUME
import time

from vllm.v1.request import RequestStatus


def _requeue(s, rs):
    s.running[:] = []
    ts = time.monotonic()
    for r in reversed(rs):
        s._preempt_request(r, ts)
        r.num_in_flight_tokens = r.num_stale_output_tokens = 0


class FaultHandler:
    RESUME = False
    _release = {
        False: lambda s, rs: s.finish_requests([r.request_id for r in rs], RequestStatus.FINISHED_ABORTED),
        True: _requeue,
    }

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s = self.engine.scheduler
        kv, rs = s.kv_cache_manager, list(s.running)
        edge = {r.request_id: r.num_computed_tokens - r.num_in_flight_tokens for r in rs}
        self._release[self.RESUME](s, rs)
        kv.evict_blocks(set().union(*({b.block_id for b in m.req_to_blocks.get(rid, ())[c // m.block_size:]
                                       if not b.is_null}
                                      for rid, c in edge.items() for m in kv.coordinator.single_type_managers)))
