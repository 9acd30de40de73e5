"""Publish/subscribe with glob-style topic patterns (``kv.*``, ``req.#``-free)."""

from __future__ import annotations

import fnmatch
from typing import Any, Callable


class PatternBus:
    def __init__(self) -> None:
        self._subs: list[tuple[str, Callable[[str, Any], None]]] = []

    def on(self, pattern: str):
        def register(fn):
            self._subs.append((pattern, fn))
            return fn

        return register

    def emit(self, topic: str, payload: Any) -> int:
        hits = 0
        for pattern, fn in list(self._subs):
            if fnmatch.fnmatchcase(topic, pattern):
                fn(topic, payload)
                hits += 1
        return hits
