from __future__ import annotations

from collections import defaultdict
from enum import Enum
from typing import Callable, Protocol


class Topic(Enum):
    ABORT = "fault.abort"
    REQUEUE = "fault.requeue"


class Listener(Protocol):
    order: int

    def on_event(self, engine, requests) -> None: ...


_LISTENERS: dict[Topic, list[Listener]] = defaultdict(list)


def listens_to(*topics: Topic) -> Callable[[type], type]:
    def register(cls: type) -> type:
        for topic in topics:
            _LISTENERS[topic].append(cls())
            _LISTENERS[topic].sort(key=lambda l: l.order)
        return cls

    return register


def publish(topic: Topic, engine, requests) -> None:
    for listener in _LISTENERS[topic]:
        listener.on_event(engine, requests)
