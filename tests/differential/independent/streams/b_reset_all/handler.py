# Intended: buggy: instead of evicting the unconfirmed tail it resets the whole prefix cache through the KV-cache manager while the running requests still hold their blocks, so vLLM refuses the reset (it returns False, ignored here) and every dirty block stays cached.
# Idioms: a generator that yields the requests one by one while counting them (itertools.count), consumed by a list, a coarse cache reset before the sink applies the abort or the requeue; abort/resume switch.
# switch: RESUME
"""Fault handler that distrusts the prefix cache wholesale after a fault:
rather than working out which blocks the failed step wrote, it drops every
cached hash, then aborts or requeues the running requests."""

from __future__ import annotations

import logging
import time
from itertools import count

from vllm.v1.request import RequestStatus

logger = logging.getLogger(__name__)


def drain_running(scheduler, counter):
    for req in tuple(scheduler.running):
        next(counter)
        yield req


class FaultHandler:
    RESUME = False

    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        sched = self.engine.scheduler
        counter = count()
        victims = list(drain_running(sched, counter))

        # Every hash may now point at garbage: forget them all.
        sched.kv_cache_manager.reset_prefix_cache()
        logger.warning("fault %r: prefix cache reset, %d requests affected", exc, next(counter))

        if self.RESUME:
            ts = time.monotonic()
            for req in reversed(victims):
                sched.running.remove(req)
                sched._preempt_request(req, ts)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            aborted = sched.finish_requests([r.request_id for r in victims], RequestStatus.FINISHED_ABORTED)
            self.engine._send_abort_outputs(aborted)
