"""Push-style coroutine pipeline pieces.

A ``source`` sends items into a chain of coroutines; ``close()`` on the head
propagates down the chain, and the sinks apply their work on close, in the
order the broadcast lists them.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable
from typing import Any

Coroutine = Generator[None, Any, None]


def coroutine(fn: Callable[..., Coroutine]) -> Callable[..., Coroutine]:
    def start(*args: Any, **kwargs: Any) -> Coroutine:
        co = fn(*args, **kwargs)
        next(co)
        return co

    start.__name__ = fn.__name__
    start.__doc__ = fn.__doc__
    return start


def source(items: Iterable[Any], target: Coroutine) -> None:
    try:
        for item in items:
            target.send(item)
    finally:
        target.close()


@coroutine
def broadcast(targets: list[Coroutine]) -> Coroutine:
    try:
        while True:
            item = yield
            for t in targets:
                t.send(item)
    except GeneratorExit:
        for t in targets:  # in order: the first target finishes first
            t.close()


@coroutine
def expand(fn: Callable[[Any], Iterable[Any]], target: Coroutine) -> Coroutine:
    """Send every item ``fn(item)`` yields."""
    try:
        while True:
            item = yield
            for out in fn(item):
                target.send(out)
    except GeneratorExit:
        target.close()


@coroutine
def collect(apply: Callable[[list[Any]], None]) -> Coroutine:
    """Gather everything; on close, hand it to ``apply``."""
    items: list[Any] = []
    try:
        while True:
            items.append((yield))
    except GeneratorExit:
        apply(items)
