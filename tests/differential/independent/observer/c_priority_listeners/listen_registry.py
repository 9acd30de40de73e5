"""Method-level listener declarations collected per class.

``@listens("fault", priority=20)`` marks a method; ``ListenerHost`` collects
the marked methods in ``__init_subclass__`` and ``dispatch`` calls them in
descending priority.
"""

from __future__ import annotations

from typing import Any, Callable

_MARK = "__listens_to__"


def listens(event: str, priority: int = 0) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        marks = getattr(fn, _MARK, [])
        marks.append((event, priority))
        setattr(fn, _MARK, marks)
        return fn

    return mark


class ListenerHost:
    _listener_table: dict[str, list[tuple[int, str]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        table: dict[str, list[tuple[int, str]]] = {}
        for klass in reversed(cls.__mro__):
            for name, attr in vars(klass).items():
                for event, priority in getattr(attr, _MARK, ()):
                    table.setdefault(event, []).append((priority, name))
        for entries in table.values():
            entries.sort(key=lambda e: -e[0])
        cls._listener_table = table

    def dispatch(self, event: str, *args: Any) -> None:
        for _, name in self._listener_table.get(event, ()):
            getattr(self, name)(*args)
