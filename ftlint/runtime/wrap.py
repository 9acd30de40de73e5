"""Wrapping fault handlers: what ``pytest --ftlint-verify`` does in the test process and
:mod:`ftlint.runtime.procs` does in every process vLLM starts.

Imports neither pytest nor vLLM.  A wrapped handler asks the innermost active
*recorder* (the pytest plugin, or the sink writer in a child process) what to do:
its ``patches`` (empty: pass through), ``strict``, ``timeout``, and where to send
each report (``record``) or a call with no scheduler (``note_unverifiable``).
"""

from __future__ import annotations

import functools
import importlib
import inspect
from typing import Any

from ftlint.core import vocabulary as V

DEFAULT_TARGET = V.SENTINEL_HANDLER
_LOCK_ATTRS = ("_fault_lock", "fault_lock", "_lock", "lock")


# -- resolving and wrapping targets ---------------------------------------


def resolve_target(dotted: str) -> tuple[Any, str]:
    """``pkg.mod:Cls.meth`` or ``pkg.mod.Cls.meth`` -> (owner, attribute)."""
    if ":" in dotted:
        module_name, _, qual = dotted.partition(":")
        obj: Any = importlib.import_module(module_name)
        parts = qual.split(".")
    else:
        parts = dotted.split(".")
        obj, i, error = None, len(parts) - 1, None
        while i > 0:
            try:
                obj = importlib.import_module(".".join(parts[:i]))
                break
            except ModuleNotFoundError as exc:
                error = exc
                i -= 1
        if obj is None:
            raise error or ModuleNotFoundError(dotted)
        parts = parts[i:]
    for name in parts[:-1]:
        obj = getattr(obj, name)
    if not parts or not hasattr(obj, parts[-1]):
        raise AttributeError(f"{dotted}: no attribute {parts[-1]!r}")
    return obj, parts[-1]


def _looks_like_scheduler(obj: Any) -> bool:
    return hasattr(obj, V.SCHEDULER_KV_CACHE_MANAGER) and hasattr(obj, V.SCHEDULER_RUNNING)


def find_scheduler(*candidates: Any) -> Any:
    for obj in candidates:
        for path in V.SCHEDULER_PATHS:
            cur = obj
            for name in path:
                cur = getattr(cur, name, None)
            if cur is not None and _looks_like_scheduler(cur):
                return cur
    return None


def find_lock(obj: Any) -> Any:
    for name in _LOCK_ATTRS:
        lock = getattr(obj, name, None)
        if lock is not None and hasattr(lock, "acquire") and hasattr(lock, "release"):
            return lock
    return None


class Patch:
    def __init__(self, plugin: Any, dotted: str) -> None:
        self.dotted = dotted
        self.owner, self.attr = resolve_target(dotted)
        self.raw = inspect.getattr_static(self.owner, self.attr)
        self.own = self.attr in vars(self.owner)

    def install(self) -> None:
        raw = self.raw
        func: Any = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
        if getattr(func, "__ftlint_wrapped__", False):  # wrapped by an outer session
            func = func.__wrapped__
        wrapped = _make_wrapper(func, self.dotted)
        if isinstance(raw, staticmethod):
            wrapped = staticmethod(wrapped)
        elif isinstance(raw, classmethod):
            wrapped = classmethod(wrapped)
        setattr(self.owner, self.attr, wrapped)

    def uninstall(self) -> None:
        if self.own:
            setattr(self.owner, self.attr, self.raw)
        else:
            delattr(self.owner, self.attr)


ACTIVE: list[Any] = []  # one recorder per configured session / process; the last one verifies


def _make_wrapper(func: Any, dotted: str) -> Any:
    @functools.wraps(func)
    def ftlint_verified(*args: Any, **kwargs: Any) -> Any:
        plugin = ACTIVE[-1] if ACTIVE else None
        if plugin is None or not plugin.patches:
            return func(*args, **kwargs)
        scheduler = find_scheduler(*args)
        if scheduler is None:
            plugin.note_unverifiable(dotted, owner=args[0] if args else None)
            return func(*args, **kwargs)
        from .report import FaultInvariantError
        from .verify import FaultObservation

        strict = plugin.strict
        lock = find_lock(args[0]) if args else None
        obs = FaultObservation(
            scheduler, strict=strict, raise_=False, lock=lock, warn=False, timeout=getattr(plugin, "timeout", None)
        )
        try:
            with obs:
                result = func(*args, **kwargs)
        finally:
            plugin.record(dotted, obs.report, owner=args[0] if args else None)
        if obs.report.failing(strict):
            raise FaultInvariantError(obs.report, strict=strict)
        return result

    ftlint_verified.__ftlint_wrapped__ = True  # type: ignore[attr-defined]
    return ftlint_verified
