# Intended: buggy: on the resume path it zeroes num_in_flight_tokens before computing the eviction boundary, so the boundary becomes num_computed_tokens and the blocks the lost step wrote are not evicted (the abort path computes it first and is fine).
# Prepares requests with a nonlocal counter in a closure and recurses over the request list.
# switch: resume
import time

from vllm.v1.request import RequestStatus

import kvtail


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine
        self.resume = False

    def on_fault(self, exc):
        sched = self.engine.scheduler
        kv = sched.kv_cache_manager
        if not self.resume:
            kvtail.evict(kv, sched.running)
            self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
            return
        cleared = 0

        def settle(reqs):
            # _preempt_request copies num_in_flight_tokens into num_stale_output_tokens:
            # zero it first so neither is left set after the preemption.
            nonlocal cleared
            if reqs:
                reqs[0].num_in_flight_tokens = 0
                cleared += 1
                settle(reqs[1:])

        settle(list(sched.running))
        kvtail.evict(kv, sched.running)
        ts = time.monotonic()
        while sched.running:
            sched._preempt_request(sched.running.pop(), ts)
