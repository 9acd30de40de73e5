# Intended: correct. Takes the running queue over, walks it in reverse with
# enumerate (so the waiting queue keeps FIFO order), preempts and resets.
import logging
import time

from kv import evict_tail

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        evict_tail(sched)
        victims = list(sched.running)
        sched.running.clear()
        ts = time.monotonic()
        for pos, request in enumerate(reversed(victims)):
            logger.info("requeue %d: %s", pos, request.request_id)
            sched._preempt_request(request, ts)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
