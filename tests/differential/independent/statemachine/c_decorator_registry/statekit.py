"""A tiny declarative state-machine base: ``@state(NAME, final=False)`` registers a
method as the handler of NAME; a handler returns the name of the next state."""

from __future__ import annotations

from typing import Callable


class MachineError(RuntimeError):
    pass


def state(name: str, *, initial: bool = False) -> Callable:
    def mark(fn):
        fn.__state_name__ = name
        fn.__state_initial__ = initial
        return fn

    return mark


class StateMachine:
    FINAL = "final"
    max_transitions = 25

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        handlers: dict[str, str] = {}
        initial = None
        for klass in reversed(cls.__mro__):
            for attr, value in vars(klass).items():
                name = getattr(value, "__state_name__", None)
                if name is None:
                    continue
                handlers[name] = attr
                if value.__state_initial__:
                    initial = name
        cls._handlers = handlers
        cls._initial = initial

    def run_machine(self) -> list[str]:
        if self._initial is None:
            raise MachineError(f"{type(self).__name__} has no initial state")
        path = []
        current = self._initial
        while current != self.FINAL:
            if len(path) >= self.max_transitions:
                raise MachineError(f"too many transitions: {path}")
            path.append(current)
            try:
                method = getattr(self, self._handlers[current])
            except KeyError:
                raise MachineError(f"no handler for state {current!r}") from None
            current = method()
        return path
