# Intended: bug. Preempts the running requests, then walks the waiting queue
# resetting counters only of requests whose status is still WAITING; the
# preempted ones (status PREEMPTED) keep their counters.
import time

from vllm.v1.request import RequestStatus

from kv import evict_tail


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict_tail(sched)
        ts = time.monotonic()
        while sched.running:
            sched._preempt_request(sched.running.pop(), ts)
        for req in list(sched.waiting):
            if req.status == RequestStatus.WAITING:
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
