# Intended: bug. Remembers the first running request as "req" for logging,
# preempts every request as "r", and then resets the counters on "req" only:
# the other preempted requests keep theirs.
import logging
import time

from kv import evict_tail

log = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        req = sched.running[0]
        log.warning("fault while running %s: %s", req.request_id, exc)
        evict_tail(sched)
        ts = time.monotonic()
        for r in list(sched.running):
            sched.running.remove(r)
            sched._preempt_request(r, ts)
        req.num_in_flight_tokens = 0
        req.num_stale_output_tokens = 0
