"""A thread-safe accumulator fed by futures' done-callbacks."""

from __future__ import annotations

import threading


class BlockIdSink:
    def __init__(self):
        self._ids: set[int] = set()
        self._errors: list[BaseException] = []
        self._lock = threading.Lock()

    def on_done(self, fut) -> None:
        if fut.cancelled():
            return
        err = fut.exception()
        with self._lock:
            if err is not None:
                self._errors.append(err)
            else:
                self._ids.update(fut.result())

    def drain(self) -> set[int]:
        with self._lock:
            if self._errors:
                raise self._errors[0]
            ids, self._ids = self._ids, set()
            return ids
