# Intended: correct.
# Idioms: contextlib.contextmanager helper module with try/finally, abort/resume switch, time.monotonic.
# switch: keep_requests
"""Quarantine dirty tails inside a ``with`` block, then abort or resume."""

from __future__ import annotations

import time

from quarantine import quarantine
from vllm.v1.request import RequestStatus


class FaultHandler:
    keep_requests = True

    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        with quarantine(sched.kv_cache_manager) as q:
            for req in sched.running:
                q.mark_tail(req)
        # The tail is out of the prefix cache now: freeing the blocks is safe.
        if self.keep_requests:
            self._requeue(sched)
        else:
            self.engine._send_abort_outputs(sched.finish_requests(None, RequestStatus.FINISHED_ABORTED))

    @staticmethod
    def _requeue(sched) -> None:
        ts = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            sched._preempt_request(req, ts)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
