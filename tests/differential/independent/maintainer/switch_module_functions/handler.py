# Intended: correct.
# Idioms: abort/resume switch; module-level helper functions in another module; eviction called once before the branch; while-pop preempt with counter reset.
# switch: resume
from __future__ import annotations

from typing import Any

from recovery import abort_all, evict_unconfirmed_blocks, preempt_running_for_resume
from vllm.logger import init_logger

logger = init_logger(__name__)


class FaultHandler:
    resume: bool = True

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: Exception) -> None:
        scheduler = self.engine.scheduler
        num_evicted = evict_unconfirmed_blocks(scheduler)
        if self.resume:
            handled = preempt_running_for_resume(scheduler)
        else:
            handled = abort_all(self.engine)
        logger.warning(
            "[FT] %s: %s %d requests, evicted %d unconfirmed blocks.",
            type(exc).__name__,
            "preempted" if self.resume else "aborted",
            len(handled),
            num_evicted,
        )
