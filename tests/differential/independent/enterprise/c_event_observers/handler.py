# Intended: correct.
# Idioms: observer pattern (an event bus with prioritised subscribers), subscribers registered on the bus by a class decorator at import time, dataclass events, abort-only.
"""Publishes an EngineFaulted event; subscribers quarantine KV and abort, in priority order."""

from __future__ import annotations

from fault_events import EngineFaulted, FaultEventBus
import fault_subscribers  # noqa: F401  (registers the default subscribers)


class FaultHandler:
    def __init__(self, engine, bus: FaultEventBus | None = None) -> None:
        self.engine = engine
        self._bus = bus or FaultEventBus.default()

    def on_fault(self, exc: Exception) -> None:
        event = EngineFaulted(
            engine=self.engine,
            error=exc,
            running=tuple(self.engine.scheduler.running),
        )
        self._bus.publish(event)
