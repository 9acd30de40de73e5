# Intended: correct.
# Idioms: ThreadPoolExecutor.submit per (request, KV-cache group) with as_completed and a timeout, results unioned into a set, a helper module holding the sweeper class and a frozen dataclass, counters cleared before the preempt on the resume path.
# switch: requeue
"""Fault handler delegating the dirty-tail scan to :class:`kvsweep.TailSweeper`."""

from __future__ import annotations

import logging
import time

from vllm.v1.request import RequestStatus

from kvsweep import TailSweeper

log = logging.getLogger(__name__)


class FaultHandler:
    requeue = False

    def __init__(self, engine, sweep_timeout_s: float = 10.0):
        self.engine = engine
        self.sweep_timeout_s = sweep_timeout_s

    def on_fault(self, exc):
        sched = self.engine.scheduler
        victims = list(sched.running)
        n = TailSweeper(sched.kv_cache_manager, timeout_s=self.sweep_timeout_s).sweep(victims)
        log.warning("fault %r: evicted %d unconfirmed blocks of %d requests", exc, n, len(victims))

        if not self.requeue:
            aborted = sched.finish_requests(
                {r.request_id for r in victims}, RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(aborted)
            return

        ts = time.monotonic()
        for req in reversed(victims):
            sched.running.remove(req)
            # Nothing of the lost step will come back: with no tokens in flight
            # the preemption records no stale output either.
            req.num_in_flight_tokens = 0
            sched._preempt_request(req, ts)
