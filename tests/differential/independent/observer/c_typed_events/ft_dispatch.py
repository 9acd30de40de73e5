"""Dispatch by event type: listeners register for a dataclass type and may
return follow-up events, which are dispatched in turn (breadth first)."""

from __future__ import annotations

from collections import deque
from typing import Any, Callable


class Dispatcher:
    def __init__(self) -> None:
        self._by_type: dict[type, list[Callable[[Any], Any]]] = {}

    def register(self, event_type: type):
        def deco(fn):
            self._by_type.setdefault(event_type, []).append(fn)
            return fn

        return deco

    def dispatch(self, first: Any) -> list[Any]:
        seen: list[Any] = []
        queue = deque([first])
        while queue:
            event = queue.popleft()
            seen.append(event)
            for fn in self._by_type.get(type(event), ()):
                follow = fn(event)
                if follow is None:
                    continue
                if isinstance(follow, (list, tuple)):
                    queue.extend(follow)
                else:
                    queue.append(follow)
        return seen
