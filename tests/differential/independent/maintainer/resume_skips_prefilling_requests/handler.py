# Intended: buggy: requests that have produced no output yet (still in prefill) are skipped by the eviction, so a failed prefill step's cached blocks stay in the prefix cache.
# Idioms: resume only; eviction and preemption in a mixin from another module; request filter on num_output_tokens; counters reset after preempt.
from __future__ import annotations

from typing import Any

from fault_mixin import FaultRecoveryMixin
from vllm.logger import init_logger

logger = init_logger(__name__)


class FaultHandler(FaultRecoveryMixin):
    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def on_fault(self, exc: Exception) -> None:
        self._evict_unconfirmed_tails()
        num_preempted = self._preempt_running_requests()
        logger.warning(
            "[FT] Busy loop raised %s. Preempted %d requests for resume.",
            type(exc).__name__,
            num_preempted,
        )
