# Intended: correct.
# Idioms: registry of recovery modes populated by a class decorator at import time, lookup by Enum key, abstract base class for modes, a shared quarantine service injected into every mode; class-attribute switch.
# switch: resume_after_fault
"""Looks up the configured recovery mode in the registry and runs it."""

from __future__ import annotations

from mode_registry import ModeKey, lookup_mode
from quarantine_service import QuarantineService
import recovery_modes  # noqa: F401  (populates the registry)


class FaultHandler:
    resume_after_fault = False

    def __init__(self, engine, quarantine: QuarantineService | None = None) -> None:
        self.engine = engine
        self.quarantine = quarantine or QuarantineService()

    @property
    def mode_key(self) -> ModeKey:
        return ModeKey.RESUME if self.resume_after_fault else ModeKey.ABORT

    def on_fault(self, exc: Exception) -> None:
        mode = lookup_mode(self.mode_key)(self.quarantine)
        mode.run(self.engine)
