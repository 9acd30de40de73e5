# Intended: correct.
# Idioms: closure factory returning (collect, flush) over a captured set, functools.partial, walrus, keyword-only dispatch methods, abort/resume switch.
# switch: PREEMPT_ON_FAULT
"""Collect every running request's unconfirmed tail, flush the eviction, then dispose of the requests."""

from __future__ import annotations

import time
from functools import partial
from typing import Any, Final

from vllm.v1.request import RequestStatus

from evictors import make_tail_evictor

ABORTED: Final = RequestStatus.FINISHED_ABORTED


class FaultHandler:
    PREEMPT_ON_FAULT: bool = False

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        collect, flush = make_tail_evictor(sched.kv_cache_manager)
        victims = [req for req in sched.running if collect(req) >= 0]
        flush()
        if self.PREEMPT_ON_FAULT:
            self._requeue(sched, victims=victims)
        else:
            self._abort(sched, victims=victims)

    def _abort(self, sched: Any, *, victims: list[Any]) -> None:
        finish = partial(sched.finish_requests, finished_status=ABORTED)
        if aborted := finish([v.request_id for v in victims]):
            self.engine._send_abort_outputs(aborted)

    @staticmethod
    def _requeue(sched: Any, *, victims: list[Any]) -> None:
        ts = time.monotonic()
        for req in reversed(victims):
            sched.running.remove(req)
            sched._preempt_request(req, ts, drop_stale_output=False)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
