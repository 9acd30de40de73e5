# Intended: buggy: only the resume arm of the match evicts the unconfirmed tail; the abort arm frees the requests straight away, so on the abort path the dirty blocks keep their prefix-cache hashes.
# Dispatches on (switch, exception) with a match statement using tuple and class patterns with a guard.
# switch: graceful
import time

from vllm.v1.request import RequestStatus

import tails


class FaultHandler:
    graceful = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        match (self.graceful, exc):
            case (True, RuntimeError() | TimeoutError() | OSError()):
                tails.evict(sched.kv_cache_manager, sched.running)
                self._requeue(sched)
            case (False, RuntimeError(args=(str(msg), *_))) if "collective" in msg:
                # the peers are gone: abort everything, nothing will be resumed
                self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))
            case _:
                tails.evict(sched.kv_cache_manager, sched.running)
                self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))

    def _requeue(self, sched):
        ts = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
