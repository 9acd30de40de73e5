"""A tiny synchronous event bus for engine fault events."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True)
class EngineFaulted:
    engine: object
    error: Exception
    running: tuple


class FaultSubscriber(ABC):
    #: lower runs first
    priority: ClassVar[int] = 100

    @abstractmethod
    def notify(self, event: EngineFaulted) -> None: ...


class FaultEventBus:
    _default: ClassVar["FaultEventBus | None"] = None

    def __init__(self) -> None:
        self._subscribers: list[FaultSubscriber] = []

    @classmethod
    def default(cls) -> "FaultEventBus":
        if cls._default is None:
            cls._default = cls()
        return cls._default

    def subscribe(self, subscriber: FaultSubscriber) -> None:
        self._subscribers.append(subscriber)
        self._subscribers.sort(key=lambda s: s.priority)

    def publish(self, event: EngineFaulted) -> None:
        for subscriber in self._subscribers:
            subscriber.notify(event)


def subscriber(cls):
    """Class decorator: instantiate and subscribe to the default bus at import time."""
    FaultEventBus.default().subscribe(cls())
    return cls
