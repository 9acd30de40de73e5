# Intended: buggy: on resume it clears num_stale_output_tokens after the preempt but leaves num_in_flight_tokens set, so the requeued request's confirmed boundary is off by the lost step.
# Idioms: helper module computing (request id, block ids) pairs with a dict comprehension, itertools.chain.from_iterable over the values, setattr through a for-expression over a tuple of names.
# switch: RESUME_ON_FAULT
import time
from itertools import chain

from dirtytail import dirty_by_request
from vllm.v1.request import RequestStatus


class FaultHandler:
    RESUME_ON_FAULT = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        s = self.engine.scheduler
        d = dirty_by_request(s.kv_cache_manager, s.running)
        s.kv_cache_manager.evict_blocks({*chain.from_iterable(d.values())})
        if not self.RESUME_ON_FAULT:
            return self.engine._send_abort_outputs(s.finish_requests(d, RequestStatus.FINISHED_ABORTED))
        rs, s.running, ts = s.running[::-1], [], time.monotonic()
        for r in rs:
            s._preempt_request(r, ts)
            [setattr(r, k, 0) for k in ("num_stale_output_tokens", "num_output_placeholders")]
