"""A tiny service locator: named factories resolved lazily, overridable in tests."""

from __future__ import annotations

from typing import Any, Callable

Factory = Callable[["ServiceRegistry"], Any]


class ServiceRegistry:
    def __init__(self, **values: Any) -> None:
        self._factories: dict[str, Factory] = {}
        self._instances: dict[str, Any] = dict(values)

    def register(self, name: str, factory: Factory, *, replace: bool = False) -> None:
        if name in self._factories and not replace:
            raise KeyError(f"service {name!r} already registered")
        self._factories[name] = factory
        self._instances.pop(name, None)

    def provide(self, name: str, instance: Any) -> None:
        """Bind a ready-made instance (a fake, in tests)."""
        self._instances[name] = instance

    def resolve(self, name: str) -> Any:
        if name not in self._instances:
            try:
                factory = self._factories[name]
            except KeyError:
                raise LookupError(f"no service registered as {name!r}") from None
            self._instances[name] = factory(self)
        return self._instances[name]
