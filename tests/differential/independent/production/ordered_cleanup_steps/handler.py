# Intended: correct.
# Resume-only handler whose per-request cleanup is a registry of steps (fault_steps.py) filled by a @cleanup_step(order=...) decorator and run in sorted order: evict tail, requeue, clear counters.
from __future__ import annotations

import logging
import time

import fault_steps

logger = logging.getLogger(__name__)


class FaultHandler:
    def __init__(self, engine) -> None:
        self.engine = engine

    def on_fault(self, exc: BaseException) -> None:
        scheduler = self.engine.scheduler
        ctx = fault_steps.StepContext(scheduler=scheduler, timestamp=time.monotonic())
        pending = list(scheduler.running)
        for request in reversed(pending):
            for step in fault_steps.ordered():
                step(ctx, request)
        logger.warning(f"{exc!r}: {len(pending)} requests requeued after {len(fault_steps.ordered())} cleanup steps each")
