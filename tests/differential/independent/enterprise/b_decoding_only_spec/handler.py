# Intended: buggy: the specification that selects requests at risk only matches requests that have already produced output tokens, so requests whose prefill step failed are skipped and all the prompt blocks cached by that failed step keep their prefix-cache hashes.
# Idioms: specification pattern (composable abstract Specification with and_/not_), a selector service injected through the constructor, an eviction service class; abort-only.
"""Abort handler that evicts the tail of the requests a specification selects."""

from __future__ import annotations

from vllm.v1.request import RequestStatus

from at_risk import AtRiskSelector, TailEvictionService


class FaultHandler:
    def __init__(self, engine, selector: AtRiskSelector | None = None, eviction: TailEvictionService | None = None) -> None:
        self.engine = engine
        self._selector = selector or AtRiskSelector.default()
        self._eviction = eviction or TailEvictionService()

    def on_fault(self, exc: Exception) -> None:
        scheduler = self.engine.scheduler
        running = list(scheduler.running)
        self._eviction.evict(scheduler.kv_cache_manager, self._selector.select(running))
        aborted = scheduler.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
