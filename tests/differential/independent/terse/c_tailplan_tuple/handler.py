# Intended: correct.
# Idioms: NamedTuple plan in a helper module with a classmethod constructor, dict comprehension keyed by request id passed as the id iterable, frozenset().union(*...), r.__dict__.update to reset the stale-output state.
# switch: requeue
import time

from tailplan import plan
from vllm.v1.request import RequestStatus


class FaultHandler:
    requeue = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s = self.engine.scheduler
        kv = s.kv_cache_manager
        p = plan(kv, s.running)
        kv.evict_blocks(frozenset().union(*(t.ids for t in p.values())))
        if not self.requeue:
            return self.engine._send_abort_outputs(s.finish_requests(p, RequestStatus.FINISHED_ABORTED))
        rs, s.running, ts = s.running, [], time.monotonic()
        for r in reversed(rs):
            s._preempt_request(r, ts)
            r.__dict__.update(num_in_flight_tokens=0, num_stale_output_tokens=0, drop_stale_output=False)
