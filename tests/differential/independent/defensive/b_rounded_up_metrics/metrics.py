"""Tiny metrics registry for the fault path."""

from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter


class Metrics:
    def __init__(self):
        self._lock = threading.Lock()
        self.counters: Counter = Counter()
        self.histograms: dict[str, list[float]] = {}

    def inc(self, key: str, n: int = 1) -> None:
        with self._lock:
            self.counters[key] += n

    @contextlib.contextmanager
    def time(self, key: str):
        t0 = time.perf_counter()
        try:
            yield
        finally:
            with self._lock:
                self.histograms.setdefault(key, []).append(time.perf_counter() - t0)


REGISTRY = Metrics()
