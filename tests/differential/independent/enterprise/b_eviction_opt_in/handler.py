# Intended: buggy: the KV quarantine is an opt-in setting that defaults to off, so with default settings the handler aborts every request without evicting anything and the blocks the failed step cached stay reusable.
# Idioms: settings dataclass with defaults injected through the constructor, a factory that picks a null-object or real quarantine implementation (abc.ABC), @property getters; abort-only.
"""Abort-on-fault handler with a configurable KV quarantine."""

from __future__ import annotations

from vllm.v1.request import RequestStatus

from ft_settings import FaultToleranceSettings
from quarantine import QuarantineFactory


class FaultHandler:
    def __init__(self, engine, settings: FaultToleranceSettings | None = None) -> None:
        self.engine = engine
        self._settings = settings or FaultToleranceSettings()
        self._quarantine = QuarantineFactory.create(self._settings)

    @property
    def settings(self) -> FaultToleranceSettings:
        return self._settings

    def on_fault(self, exc: Exception) -> None:
        scheduler = self.engine.scheduler
        running = list(scheduler.running)
        self._quarantine.isolate(scheduler, running)
        aborted = scheduler.finish_requests([r.request_id for r in running], RequestStatus.FINISHED_ABORTED)
        self.engine._send_abort_outputs(aborted)
