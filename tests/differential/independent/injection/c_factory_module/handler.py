# Intended: correct.
# Idioms: a factory module (build_parts) that assembles a frozen dataclass of collaborators,
# keyword overrides for fakes, Protocol-typed callables, closures over the scheduler.
# switch: resume_enabled
"""Fault handler assembled by handler_wiring.build_parts."""

from __future__ import annotations

from typing import Any

from handler_wiring import HandlerParts, build_parts


class FaultHandler:
    resume_enabled: bool = False

    def __init__(self, engine: Any, parts: HandlerParts | None = None, **overrides: Any) -> None:
        self.engine = engine
        self.parts = parts if parts is not None else build_parts(engine, **overrides)

    def on_fault(self, exc: BaseException) -> None:
        p = self.parts
        affected = list(p.scheduler.running)
        # Scrub the unconfirmed tail while the requests still own their blocks.
        dirty: set[int] = set()
        for request in affected:
            dirty |= p.locate_tail(request)
        if dirty:
            p.evict(dirty)

        if self.resume_enabled:
            ts = p.now()
            for request in reversed(affected):
                p.requeue(request, ts)
        else:
            p.on_aborted(p.abort([r.request_id for r in affected]))
