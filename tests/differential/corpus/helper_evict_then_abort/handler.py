# Intended: correct.
# Evicts every running request's unconfirmed tail through a helper module, then either aborts all requests or preempts the running ones and clears their in-flight counters.
# switch: RESUME_ON_FAULT
import time

from kv_tail import evict_unconfirmed_tails
from vllm.v1.request import RequestStatus


class FaultHandler:
    RESUME_ON_FAULT = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        running = list(scheduler.running)
        evict_unconfirmed_tails(scheduler, running)

        if not self.RESUME_ON_FAULT:
            aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
            return

        now = time.monotonic()
        # Preempt in reverse so the waiting queue keeps FIFO order.
        while scheduler.running:
            request = scheduler.running.pop()
            scheduler._preempt_request(request, now)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
