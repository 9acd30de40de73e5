"""The verifier's entry points: context managers around a fault-handler call."""

from __future__ import annotations

import ctypes
import inspect
import threading
import warnings
from collections.abc import Callable
from types import TracebackType
from typing import Any, Literal

from ftlint.core import vocabulary as V

from .checks import run_checks
from .report import FaultHandlerTimeout, FaultInvariantError, FaultReport, FaultVerificationWarning
from .snapshot import Snapshot, take_snapshot

DEFAULT_LOCK_TIMEOUT = 10.0


class _Tripwire:
    """Notes a call of one of the scheduler's busy-loop methods from a thread other than
    the observing one, between ``arm`` and ``disarm`` (instance attributes that shadow the
    class's methods, removed afterwards; a scheduler whose methods cannot be shadowed is
    simply not watched)."""

    def __init__(self, scheduler: Any) -> None:
        self.scheduler = scheduler
        self.owner = threading.get_ident()
        self.calls: list[str] = []
        self._installed: list[str] = []

    def arm(self) -> None:
        own = getattr(self.scheduler, "__dict__", None)
        if own is None:
            return
        for name in V.SCHEDULER_MUTATORS:
            method = getattr(self.scheduler, name, None)
            if method is None or name in own:
                continue
            try:
                setattr(self.scheduler, name, self._watch(name, method))
            except (AttributeError, TypeError):
                continue
            self._installed.append(name)

    def _watch(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def watched(*args: Any, **kwargs: Any) -> Any:
            thread = threading.current_thread()
            if thread.ident != self.owner:
                self.calls.append(f"{name}() from thread {thread.name!r}")
            return method(*args, **kwargs)

        return watched

    def disarm(self) -> None:
        own = self.scheduler.__dict__ if self._installed else {}
        for name in self._installed:
            own.pop(name, None)
        self._installed = []


class _Watchdog:
    """After ``timeout`` seconds, raise FaultHandlerTimeout in the observing thread (at its
    next Python instruction: a handler blocked inside one C call is interrupted when it
    returns to Python)."""

    def __init__(self, report: FaultReport, timeout: float) -> None:
        self.report = report
        self.timeout = timeout
        self.thread = threading.get_ident()
        self._lock = threading.Lock()
        self._running = True
        self._timer = threading.Timer(timeout, self._fire)
        self._timer.daemon = True

    def start(self) -> None:
        self._timer.start()

    def _fire(self) -> None:
        with self._lock:
            if not self._running:
                return
            self.report.timed_out = True
            self.report.cannot_verify.append(
                f"the fault handler did not return within {self.timeout:g}s (a hang?): interrupted"
            )
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(self.thread), ctypes.py_object(FaultHandlerTimeout)
            )

    def stop(self) -> None:
        with self._lock:
            self._running = False
        self._timer.cancel()


class FaultObservation:
    """Context manager: snapshot on entry, FTR01-05 on exit.

    Observes only: nothing in the scheduler is written.  If the handler raises,
    its exception propagates unchanged; the report is attached to it as
    ``exc.ftlint_report`` (and as a note when there are violations).

    ``lock``: the fault handler's own lock, if it has one.  The snapshot and the
    checks run while holding it (never during the handler), so they do not
    interleave with another thread that takes the same lock.  It must be a
    threading.Lock/RLock-like lock (``acquire(timeout=...)`` returning a bool);
    any other (an ``asyncio.Lock``), or one not taken within ``lock_timeout``
    seconds (e.g. a non-reentrant lock already held by the caller), is reported
    as "cannot verify" (once: the checks do not wait again) and the handler
    still runs.
    """

    def __init__(
        self,
        scheduler: Any,
        *,
        strict: bool = False,
        raise_: bool = True,
        lock: Any = None,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        warn: bool | None = None,
        timeout: float | None = None,
    ) -> None:
        self.scheduler = scheduler
        self.timeout = timeout if timeout else None
        self.strict = strict
        self.raise_ = raise_
        self.lock = lock
        self.lock_timeout = lock_timeout
        self.warn = raise_ if warn is None else warn
        self.report = FaultReport()
        self._snap: Snapshot | None = None
        self._lock_failed = False
        self._tripwire: _Tripwire | None = None
        self._watchdog: _Watchdog | None = None

    # -- locking ---------------------------------------------------------
    def _locked(self, what: str, fn: Callable[[], None]) -> None:
        """Run ``fn`` holding ``self.lock``. Only a lock whose ``acquire(timeout=...)``
        returns a bool (threading.Lock/RLock-like) is taken, with one timed wait; any other
        lock, or one not taken in time, is "cannot verify", reported once: a step after a
        failed one does not wait again (so a held lock costs one timeout, not two)."""
        if self.lock is None:
            fn()
            return
        if self._lock_failed:
            return
        problem = self._acquire(what)
        if problem is not None:
            self._lock_failed = True
            self.report.cannot_verify.append(problem)
            return
        try:
            fn()
        finally:
            self.lock.release()

    def _acquire(self, what: str) -> str | None:
        """None once the lock is held; else why it was not taken."""
        lock = self.lock
        kind = type(lock).__name__
        unusable = (
            f"{what}: the fault handler's lock ({kind}) is not a lock whose "
            "acquire(timeout=...) returns a bool (threading.Lock/RLock-like)"
        )
        acquire = getattr(lock, "acquire", None)
        if not callable(acquire) or not callable(getattr(lock, "release", None)):
            return unusable
        if inspect.iscoroutinefunction(acquire):  # asyncio.Lock: awaiting it here cannot work
            return unusable
        try:
            acquired = acquire(timeout=self.lock_timeout)
        except TypeError:  # no timeout parameter
            return unusable
        if not isinstance(acquired, bool):
            if inspect.iscoroutine(acquired):
                acquired.close()
            return unusable
        if not acquired:
            return (
                f"{what}: could not take the fault handler's lock within "
                f"{self.lock_timeout:g}s (held elsewhere, or by this thread)"
            )
        return None

    def _take(self) -> None:
        try:
            self._snap = take_snapshot(self.scheduler)
        except Exception as exc:  # noqa: BLE001 - never crash the user's test on our own bug
            self.report.cannot_verify.append(f"snapshot failed: {type(exc).__name__}: {exc}")

    def _check(self) -> None:
        if self._snap is None:
            return
        try:
            run_checks(self._snap, self.report)
            self.report.complete = True
        except Exception as exc:  # noqa: BLE001 - reported as cannot-verify, never raised into the test
            self.report.cannot_verify.append(f"checks failed: {type(exc).__name__}: {exc}")

    # -- context manager -------------------------------------------------
    def __enter__(self) -> FaultReport:
        self._tripwire = _Tripwire(self.scheduler)
        self._tripwire.arm()
        self._locked("snapshot", self._take)
        if self.timeout is not None:
            self._watchdog = _Watchdog(self.report, self.timeout)
            self._watchdog.start()
        return self.report

    def _stop_watching(self) -> None:
        if self._watchdog is not None:
            self._watchdog.stop()
            self._watchdog = None
        tripwire, self._tripwire = self._tripwire, None
        if tripwire is None:
            return
        tripwire.disarm()
        if tripwire.calls:
            shown = ", ".join(tripwire.calls[:3]) + (
                f" and {len(tripwire.calls) - 3} more" if len(tripwire.calls) > 3 else ""
            )
            self.report.cannot_verify.append(
                f"the scheduler was changed by another thread during the verified call ({shown}): "
                "pause the engine while its fault handler runs"
            )

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> Literal[False]:
        if self._watchdog is not None:
            self._watchdog.stop()
        self._locked("checks", self._check)
        self._stop_watching()
        self._snap = None  # drop references to vLLM objects
        report = self.report
        if self.warn and report.cannot_verify:
            warnings.warn(
                "ftlint could not verify this fault handler: " + "; ".join(report.cannot_verify),
                FaultVerificationWarning,
                stacklevel=2,
            )
        if exc is not None:
            report.handler_exception = exc
            try:
                exc.ftlint_report = report  # type: ignore[attr-defined]
                if report.violations and hasattr(exc, "add_note"):
                    exc.add_note(report.format(self.strict))
            except Exception:  # noqa: BLE001 - the handler's own exception must propagate unchanged
                pass
            return False  # the handler's exception propagates unchanged
        if self.raise_ and report.failing(self.strict):
            raise FaultInvariantError(report, strict=self.strict)
        return False


def verify_fault_handling(
    scheduler: Any, *, strict: bool = False, lock: Any = None, lock_timeout: float = DEFAULT_LOCK_TIMEOUT
) -> FaultObservation:
    """Put around a call of a fault handler; raises FaultInvariantError on exit
    when the handler broke an invariant (FTR02 only with ``strict=True``).

    ``with verify_fault_handling(scheduler) as report: handler(...)``; the
    report is filled on exit.  Checks that cannot run (unknown vLLM layout) are
    listed in ``report.cannot_verify`` and warned about
    (:class:`FaultVerificationWarning`), never raised or passed silently.
    """
    return FaultObservation(scheduler, strict=strict, raise_=True, lock=lock, lock_timeout=lock_timeout)


def observe_fault_handling(
    scheduler: Any, *, lock: Any = None, lock_timeout: float = DEFAULT_LOCK_TIMEOUT
) -> FaultObservation:
    """Like :func:`verify_fault_handling` but never raises for violations (and
    does not warn): read the yielded report after the ``with`` block."""
    return FaultObservation(scheduler, raise_=False, lock=lock, lock_timeout=lock_timeout)


def check_fault_handling(
    scheduler: Any, handler: Callable[..., Any], *args: Any, lock: Any = None, **kwargs: Any
) -> FaultReport:
    """Call ``handler(*args, **kwargs)`` and return the report (violations and
    counts) without raising for violations.  A handler exception propagates,
    with the report attached as ``exc.ftlint_report``."""
    with observe_fault_handling(scheduler, lock=lock) as report:
        handler(*args, **kwargs)
    return report
