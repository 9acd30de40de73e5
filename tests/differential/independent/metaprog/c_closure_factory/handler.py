# Intended: correct.
# Idioms: closure factories that capture the scheduler and per-group managers, functools.partial and operator.methodcaller, a dict of closures keyed by path name.
# switch: RESUME
"""Fault handler built from closures made once per fault."""

from __future__ import annotations

import time

from vllm.v1.request import RequestStatus

from tail_tools import make_aborter, make_evictor, make_requeuer


class FaultHandler:
    RESUME = False

    def __init__(self, engine):
        self.engine = engine

    def _plan(self, scheduler):
        return {
            "evict": make_evictor(scheduler.kv_cache_manager),
            "abort": make_aborter(
                scheduler, RequestStatus.FINISHED_ABORTED, getattr(self.engine, "_send_abort_outputs", None)
            ),
            "resume": make_requeuer(scheduler, time.monotonic),
        }

    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        plan = self._plan(scheduler)
        requests = list(scheduler.running)
        plan["evict"](requests)
        plan["resume" if self.RESUME else "abort"](requests)
