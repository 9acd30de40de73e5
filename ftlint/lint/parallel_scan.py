"""Run the project scan (walking and reading every Python file) in a forked child,
while the parent process imports LibCST and parses the files it was given; or share
the scan's files with a forked child (`share`).

A pre-commit run lints one file, but must scan the whole project for handlers that
reach it: about as long as importing LibCST itself. The two overlap on a machine with
two CPUs. Only where `fork` is cheap and safe (Linux), with two CPUs or more, and never
twice at once; anything that goes wrong in the child (it prints nothing) makes the
caller do the scan itself, so results never depend on it.
"""

from __future__ import annotations

import mmap
import os
import pickle
import signal
import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeGuard

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

    def abandon(self) -> None:
        """Stop the child and reap it, its result unread (the caller is failing)."""
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass  # gone already
        os.close(self.read_end)
        os.waitpid(self.pid, 0)


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


#: how many items a side of `share` claims at a time
SHARE_CHUNK = 32
#: how many items between the two sides' claims count as near: claimed one at a time here
_NEAR = 16 * SHARE_CHUNK
#: a verdict of `share` that also asks for its `first` call
WANTS_FIRST = 2
_SLOT = struct.Struct("q")  # the shared page: the child's front at 0, this process's back at 8, the ask at 16


@dataclass
class Shared:
    """What `share` computed: every item's verdict, what the child's `extra` returned and
    what `first` returned (None when nothing asked for it)."""

    verdicts: list[int]
    extra: Any
    first: Any


def share(
    count: int,
    verdict: Callable[[int], int],
    *,
    first: Callable[[], Any] | None = None,
    first_now: bool = False,
    extra: Callable[[], Any] = lambda: None,
) -> Shared | None:
    """`verdict(i)` (0, 1 or WANTS_FIRST) for every i in range(count), by two processes: a
    forked child takes items from the front (chunks, smaller as it nears this process's
    claim: _claim), this process from the back (chunks, one at a time once near the
    child's claim); they stop where they meet.
    Each side publishes how far it has claimed in a shared page before judging and claims
    no further than the other's claim as it read it: a stale read only makes both judge
    an item or a small chunk (same verdicts), never leaves one unjudged. Once either side
    meets a WANTS_FIRST verdict (or at once with `first_now`), this process calls
    `first()` (importing LibCST, say) before its next chunk, while the child goes on (or
    at the end, when the child was done first): called once, and only if asked.
    The child also sends `extra()`. None when no child could be started (the caller
    judges them all); a child that fails leaves its part to this process."""
    if not available():
        return None
    try:
        page = mmap.mmap(-1, 3 * _SLOT.size)  # anonymous: shared with the child
    except (OSError, ValueError):
        return None
    front_at, back_at, ask_at = 0, _SLOT.size, 2 * _SLOT.size
    _SLOT.pack_into(page, back_at, count)

    def judged(begin: int, end: int) -> list[int]:
        got = [verdict(i) for i in range(begin, end)]
        if WANTS_FIRST in got:
            _SLOT.pack_into(page, ask_at, 1)
        return got

    def from_front() -> tuple[bytes, Any]:
        done = bytearray()
        front = 0
        while front < count and front < (back := _SLOT.unpack_from(page, back_at)[0]):
            end = front + _claim(back - front)  # not past the other side's claim
            _SLOT.pack_into(page, front_at, end)
            done.extend(judged(front, end))
            front = end
        return bytes(done), extra()

    child = start(from_front)
    if child is None:
        page.close()
        return None
    first_result, called = None, first is None
    verdicts = [0] * count
    back = count
    try:
        while back > 0 and back > (front := _SLOT.unpack_from(page, front_at)[0]):
            if first is not None and not called and (first_now or _SLOT.unpack_from(page, ask_at)[0]):
                first_result, called = first(), True
                continue
            # near the child's claim one at a time: this process joins late (it makes the
            # linter first), and what it claims the child cannot take over (a guarded file
            # costs a thousand plain ones)
            begin = back - (SHARE_CHUNK if back - front > _NEAR else 1)
            _SLOT.pack_into(page, back_at, begin)
            verdicts[begin:back] = judged(begin, back)
            back = begin
    except BaseException:  # `first` or a verdict raised here: as without a child, with no child left
        child.abandon()
        page.close()
        raise
    sent = child()
    page.close()
    done, extra_result = sent if _well_formed(sent) else (b"", None)
    verdicts[: min(len(done), back)] = done[:back]
    if len(done) < back:  # the child failed or stopped short: judged here
        verdicts[len(done) : back] = [verdict(i) for i in range(len(done), back)]
    if first is not None and not called and (first_now or WANTS_FIRST in verdicts):
        first_result = first()  # asked for once the child was done
    return Shared(verdicts, extra_result, first_result)


def _claim(left: int) -> int:
    """How many of the `left` items between the two sides' claims the child takes next: a
    chunk, less as it nears this process's claim (a file can take a thousand times
    another's time, so the last chunks are small: neither side is left judging a long
    chunk alone)."""
    return max(1, min(SHARE_CHUNK, left // 4))


def _well_formed(sent: Any) -> TypeGuard[tuple[bytes, Any]]:
    return type(sent) is tuple and len(sent) == 2 and type(sent[0]) is bytes
