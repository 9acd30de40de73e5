"""Run the project scan (walking and reading every Python file) in a forked child,
while the parent process imports LibCST and parses the files it was given.

A pre-commit run lints one file, but must scan the whole project for handlers that
reach it: about as long as importing LibCST itself. The two overlap on a machine with
two CPUs. Only where `fork` is cheap and safe (Linux), with two CPUs or more, and never
twice at once; anything that goes wrong in the child (it prints nothing) makes the
caller do the scan itself, so results never depend on it.
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable
from typing import Any

#: Set False to always scan in-process (tests compare both ways).
ENABLED = True


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def available() -> bool:
    return ENABLED and sys.platform.startswith("linux") and hasattr(os, "fork") and _cpus() >= 2


class Forked:
    """A computation running in a forked child: `ready()` asks without waiting, calling
    the object waits for the result (None when the child failed)."""

    def __init__(self, pid: int, read_end: int) -> None:
        self.pid = pid
        self.read_end = read_end

    def ready(self) -> bool:
        """Whether the child has started sending its result (it sends it all at the end)."""
        import select

        try:
            return bool(select.select([self.read_end], [], [], 0)[0])
        except (OSError, ValueError):
            return True  # let the caller collect (and see the failure)

    def __call__(self) -> Any | None:
        chunks = []
        try:
            while True:
                chunk = os.read(self.read_end, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
        finally:
            os.close(self.read_end)
        _, status = os.waitpid(self.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            return None
        try:
            return pickle.loads(b"".join(chunks))
        except Exception:  # noqa: BLE001 - a short or garbled message: compute in-process
            return None


def start(compute: Callable[[], Any]) -> Forked | None:
    """Fork a child that runs `compute()` and sends back its (picklable) result. Returns
    the Forked child, or None right away when forking is not available (the caller
    computes)."""
    if not available():
        return None
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:  # the child: compute, send, and leave without running the parent's cleanup
        code = 1
        try:
            os.close(read_end)
            data = pickle.dumps(compute(), protocol=pickle.HIGHEST_PROTOCOL)
            view = memoryview(data)
            while view:
                view = view[os.write(write_end, view) :]
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    return Forked(pid, read_end)
