"""Process-local counters and timers for the fault path."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from dataclasses import dataclass, field

log = logging.getLogger(__name__)


@dataclass
class Metrics:
    faults: int = 0
    blocks_evicted: int = 0
    requests_aborted: int = 0
    errors: int = 0
    timings_s: dict = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def incr(self, name: str, by: int = 1) -> None:
        with self._lock:
            setattr(self, name, getattr(self, name, 0) + by)


METRICS = Metrics()


@contextlib.contextmanager
def timed(stage: str, metrics: Metrics = METRICS):
    started = time.perf_counter()
    try:
        yield
    finally:
        elapsed = time.perf_counter() - started
        metrics.timings_s[stage] = elapsed
        log.debug("fault stage %s took %.6fs", stage, elapsed)
