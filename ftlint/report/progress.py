"""Progress on stderr for long runs (issue 24 item 3): files done and files per second,
on one line overwritten in place and cleared at the end. Shown only when stderr is a
terminal and neither -q nor -s was given; from the start with --exhaustive, else once a
run has taken 2 s. Never written to stdout."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TextIO

from ftlint.core import progress

DELAY_S = 2.0  # a run shows progress once it has taken this long (--exhaustive: at once)
EVERY_S = 0.1  # at most this often


class _Line:
    def __init__(self, stream: TextIO, delay: float) -> None:
        self.stream = stream
        self.start = time.monotonic()
        self.delay = delay
        self.done = 0
        self.shown = False
        self.last = float("-inf")

    def tick(self) -> None:
        self.done += 1
        now = time.monotonic()
        elapsed = now - self.start
        if elapsed < self.delay or now - self.last < EVERY_S:
            return
        self.last = now
        rate = self.done / elapsed if elapsed > 0 else 0.0
        self.stream.write(f"\r\x1b[K{self.done} files, {rate:.0f} files/s")
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


@contextmanager
def shown(*, quiet: bool, exhaustive: bool, stream: TextIO | None = None) -> Iterator[None]:
    """Show progress while the block runs, when `stream` (stderr) is a terminal and not quiet."""
    stream = stream if stream is not None else sys.stderr
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    if quiet or not tty:
        yield
        return
    line = _Line(stream, 0.0 if exhaustive else DELAY_S)
    progress.install(line.tick)
    try:
        yield
    finally:
        progress.install(None)
        line.clear()


def shown_for(args: Any) -> AbstractContextManager[None]:
    """`shown` for `ftlint check`'s arguments (-q, -s, --exhaustive)."""
    return shown(quiet=bool(args.quiet or args.silent), exhaustive=bool(args.exhaustive))
