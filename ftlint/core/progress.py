"""One hook for progress on long work (issue 24 item 3): the engine calls `tick()` once a
file is screened or linted; nothing happens unless a front end (the CLI's
ftlint.report.progress) installed a callback with `install`."""

from __future__ import annotations

from collections.abc import Callable

_callback: Callable[[], None] | None = None


def install(callback: Callable[[], None] | None) -> None:
    """Call `callback` on each tick from now on (None: stop)."""
    global _callback
    _callback = callback


def tick() -> None:
    """One more file done."""
    if _callback is not None:
        _callback()
