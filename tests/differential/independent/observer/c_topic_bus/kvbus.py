"""A tiny topic bus: listeners subscribe to topic strings and run by priority."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable

Listener = Callable[[Any], None]


class TopicBus:
    def __init__(self) -> None:
        self._listeners: dict[str, list[tuple[int, int, Listener]]] = defaultdict(list)
        self._seq = 0

    def subscribe(self, topic: str, listener: Listener, priority: int = 0) -> None:
        """Higher priority runs first; equal priorities run in subscription order."""
        self._seq += 1
        self._listeners[topic].append((-priority, self._seq, listener))
        self._listeners[topic].sort(key=lambda entry: entry[:2])

    def publish(self, topic: str, event: Any) -> None:
        for _, _, listener in list(self._listeners.get(topic, ())):
            listener(event)
