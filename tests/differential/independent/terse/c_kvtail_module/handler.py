# Intended: correct.
# Idioms: helper module with a lambda and map/filter/attrgetter, doubly nested itertools.chain.from_iterable, tuple swap of scheduler.running, vars(r).update to reset counters.
# switch: resume_on_fault
import time
from itertools import chain

from kvtail import tail_ids
from vllm.v1.request import RequestStatus


class FaultHandler:
    resume_on_fault = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s, now = self.engine.scheduler, time.monotonic()
        kv = s.kv_cache_manager
        kv.evict_blocks(set(chain.from_iterable(chain.from_iterable(tail_ids(kv, r) for r in s.running))))
        if not self.resume_on_fault:
            return self.engine._send_abort_outputs(
                s.finish_requests([r.request_id for r in s.running], RequestStatus.FINISHED_ABORTED))
        rs, s.running = s.running, []
        for r in reversed(rs):
            s._preempt_request(r, now)
            vars(r).update(num_in_flight_tokens=0, num_stale_output_tokens=0)
