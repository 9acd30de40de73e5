from __future__ import annotations

from enum import Enum
from typing import Callable, TypeVar

T = TypeVar("T", bound=type)


class ModeKey(Enum):
    ABORT = "abort"
    RESUME = "resume"


_REGISTRY: dict[ModeKey, type] = {}


def recovery_mode(key: ModeKey) -> Callable[[T], T]:
    def register(cls: T) -> T:
        if key in _REGISTRY:
            raise KeyError(f"recovery mode {key} registered twice")
        _REGISTRY[key] = cls
        return cls

    return register


def lookup_mode(key: ModeKey) -> type:
    return _REGISTRY[key]
