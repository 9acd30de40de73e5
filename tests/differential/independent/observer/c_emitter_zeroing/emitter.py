"""A Node-style event emitter: on / once / off / emit."""

from __future__ import annotations

from typing import Any, Callable


class Emitter:
    def __init__(self) -> None:
        self._handlers: dict[str, list[tuple[Callable[..., Any], bool]]] = {}

    def on(self, name: str, fn: Callable[..., Any]) -> "Emitter":
        self._handlers.setdefault(name, []).append((fn, False))
        return self

    def once(self, name: str, fn: Callable[..., Any]) -> "Emitter":
        self._handlers.setdefault(name, []).append((fn, True))
        return self

    def off(self, name: str, fn: Callable[..., Any]) -> "Emitter":
        self._handlers[name] = [(f, o) for f, o in self._handlers.get(name, []) if f is not fn]
        return self

    def emit(self, name: str, *args: Any) -> bool:
        entries = self._handlers.get(name, [])
        if not entries:
            return False
        self._handlers[name] = [(f, o) for f, o in entries if not o]
        for fn, _ in entries:
            fn(*args)
        return True
