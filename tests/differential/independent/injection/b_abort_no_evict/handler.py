# Intended: buggy: only the resume path evicts the unconfirmed tail; the abort path frees the requests with their dirty blocks' hashes intact, so a later request with the same prefix gets a prefix-cache hit on KV that was never computed.
# Idioms: two path objects built by a factory and injected as a dict keyed by mode, closures
# from make_tail_evictor as the evictor seam, an injected clock and notifier.
# switch: RESUME
"""Fault handler dispatching to injected recovery paths."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fault_paths import AbortPath, ResumePath, make_tail_evictor


def default_paths(engine: Any) -> dict[str, Callable[[list[Any]], None]]:
    sched = engine.scheduler
    return {
        "resume": ResumePath(sched, make_tail_evictor(sched.kv_cache_manager)),
        "abort": AbortPath(sched, engine._send_abort_outputs),
    }


class FaultHandler:
    RESUME = False

    def __init__(self, engine: Any, paths: Mapping[str, Callable[[list[Any]], None]] | None = None) -> None:
        self.engine = engine
        self.paths = dict(paths) if paths is not None else default_paths(engine)

    def on_fault(self, exc: BaseException) -> None:
        requests = list(self.engine.scheduler.running)
        self.paths["resume" if self.RESUME else "abort"](requests)
