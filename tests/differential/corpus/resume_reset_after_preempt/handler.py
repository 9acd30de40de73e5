# Intended: correct. Resume: evicts the tail via a helper module, pops each
# running request, preempts it and resets num_in_flight_tokens and
# num_stale_output_tokens afterwards.
import time

from ft_helpers import evict_unconfirmed_tail


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict_unconfirmed_tail(sched)
        now = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            sched._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
