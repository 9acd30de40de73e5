# Intended: buggy: on resume it preempts with drop_stale_output=True, so each request is marked to drop the failed step's output frame, which never arrives, and the first good frame after resume is dropped instead.
# Idioms: functools.partial binding drop_stale_output, reduce(or_) over per-request tails, conditional expression choosing the path, deque popped from the right.
# switch: resume
import time
from collections import deque
from functools import partial, reduce
from operator import or_

from vllm.v1.request import RequestStatus


def tails(kv, rs):
    return reduce(or_, ({b.block_id for m in kv.coordinator.single_type_managers
                         for b in m.req_to_blocks.get(r.request_id, ())[(r.num_computed_tokens - r.num_in_flight_tokens) // m.block_size:]
                         if not b.is_null} for r in rs), set())


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s = self.engine.scheduler
        s.kv_cache_manager.evict_blocks(tails(s.kv_cache_manager, s.running))
        self._requeue(s) if self.resume else self.engine._send_abort_outputs(
            s.finish_requests([r.request_id for r in s.running], RequestStatus.FINISHED_ABORTED))

    def _requeue(self, s):
        q, s.running = deque(s.running), []
        preempt = partial(s._preempt_request, timestamp=time.monotonic(), drop_stale_output=True)
        while q:
            preempt(r := q.pop())
            r.num_in_flight_tokens = 0
