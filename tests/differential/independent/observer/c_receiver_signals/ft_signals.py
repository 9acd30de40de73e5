"""Named signals with module-level receivers, in the style of Django signals.

Receivers are registered with ``@receiver(signal)`` at import time and called
with the sender and keyword arguments; ``send`` returns their results.
"""

from __future__ import annotations

from typing import Any, Callable


class Signal:
    def __init__(self, name: str) -> None:
        self.name = name
        self.receivers: list[Callable[..., Any]] = []

    def connect(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        if fn not in self.receivers:
            self.receivers.append(fn)
        return fn

    def send(self, sender: Any, **kwargs: Any) -> list[tuple[Callable[..., Any], Any]]:
        return [(fn, fn(sender, **kwargs)) for fn in self.receivers]


def receiver(signal: Signal) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        return signal.connect(fn)

    return decorate


before_abort = Signal("before_abort")
after_abort = Signal("after_abort")
