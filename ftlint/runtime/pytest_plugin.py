"""pytest plugin: verify every fault handler a test runs (runtime assertion mode).

Loaded through the ``pytest11`` entry point by every pytest run in the
environment, so it imports nothing heavy: vLLM is imported only when
verification is asked for (``--ftlint-verify``, ``ftlint_verify = true`` in the
ini, the ``ftlint_verify`` marker or the ``ft_verifier`` fixture).

While active, vLLM's ``EngineCoreSentinel.on_fault`` (and every
``--ftlint-verify-target``) is wrapped: the scheduler is snapshotted before the
call and FTR01-FTR05 are checked after it.  A violation raises
``FaultInvariantError`` from the handler *and* is recorded, so the test that
triggered it fails even when the engine swallows exceptions raised by its
handler (the failure is attached to the phase report, like pytest's
unraisable-exception handling).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import threading
from typing import Any, cast

import pytest

from ftlint.core import vocabulary as V

DEFAULT_TARGET = V.SENTINEL_HANDLER
PLUGIN_NAME = "ftlint-verifier"
MARKER = "ftlint_verify"
_LOCK_ATTRS = ("_fault_lock", "fault_lock", "_lock", "lock")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ftlint", "ftlint runtime verifier")
    group.addoption(
        "--ftlint-verify",
        action="store_true",
        default=None,
        dest="ftlint_verify",
        help="verify every vLLM fault handler called in any test "
        "(wraps EngineCoreSentinel.on_fault and --ftlint-verify-target).",
    )
    group.addoption(
        "--ftlint-verify-target",
        action="append",
        default=[],
        dest="ftlint_verify_targets",
        metavar="DOTTED",
        help="another fault handler to verify, e.g. mypkg.ft:Sentinel.on_fault (repeatable; implies --ftlint-verify).",
    )
    group.addoption(
        "--ftlint-verify-strict",
        action="store_true",
        default=None,
        dest="ftlint_verify_strict",
        help="also fail on FTR02 (clean cached blocks evicted).",
    )
    parser.addini("ftlint_verify", "verify every vLLM fault handler (like --ftlint-verify)", type="bool", default=False)
    parser.addini(
        "ftlint_verify_targets", "extra fault handlers to verify, one dotted name a line", type="linelist", default=[]
    )
    parser.addini("ftlint_verify_strict", "fail on FTR02 too", type="bool", default=False)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(enabled=True, strict=False): verify every fault handler called in "
        "this test (wraps EngineCoreSentinel.on_fault and the configured targets); "
        "ftlint_verify(False) opts a test out, e.g. one that runs a bad handler on "
        "purpose.",
    )
    plugin = _Plugin(config)
    config.pluginmanager.register(plugin, PLUGIN_NAME)
    _ACTIVE.append(plugin)  # innermost session last (pytester runs nest)


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


class _Patch:
    def __init__(self, plugin: _Plugin, dotted: str) -> None:
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


_ACTIVE: list[_Plugin] = []  # one per configured session; the last one verifies


def _make_wrapper(func: Any, dotted: str) -> Any:
    @functools.wraps(func)
    def ftlint_verified(*args: Any, **kwargs: Any) -> Any:
        plugin = _ACTIVE[-1] if _ACTIVE else None
        if plugin is None or not plugin.patches:
            return func(*args, **kwargs)
        scheduler = find_scheduler(*args)
        if scheduler is None:
            plugin.note_unverifiable(dotted)
            return func(*args, **kwargs)
        from .report import FaultInvariantError
        from .verify import FaultObservation

        strict = plugin.strict
        lock = find_lock(args[0]) if args else None
        obs = FaultObservation(scheduler, strict=strict, raise_=False, lock=lock, warn=False)
        try:
            with obs:
                result = func(*args, **kwargs)
        finally:
            plugin.record(dotted, obs.report)
        if obs.report.failing(strict):
            raise FaultInvariantError(obs.report, strict=strict)
        return result

    ftlint_verified.__ftlint_wrapped__ = True  # type: ignore[attr-defined]
    return ftlint_verified


# -- the plugin object --------------------------------------------------------


class _Plugin:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        targets = list(config.getoption("ftlint_verify_targets") or [])
        targets += [t for t in config.getini("ftlint_verify_targets") if t.strip()]
        self.extra_targets = targets
        opt = config.getoption("ftlint_verify")
        self.session_wide = bool(opt if opt is not None else config.getini("ftlint_verify")) or bool(targets)
        sopt = config.getoption("ftlint_verify_strict")
        self.default_strict = bool(sopt if sopt is not None else config.getini("ftlint_verify_strict"))
        self.strict = self.default_strict
        self.patches: list[_Patch] = []
        self.status: str | None = None
        self._lock = threading.Lock()
        self._pending: list[tuple[str, Any]] = []
        self._unverifiable: list[str] = []
        self.test_reports: list[Any] = []

    # -- installing ---------------------------------------------------
    def install(self) -> bool:
        if self.patches:
            return True
        patches = []
        try:
            patches.append(_Patch(self, DEFAULT_TARGET))
        except ImportError as exc:
            self.status = (
                f"ftlint: --ftlint-verify: vLLM is not importable ({exc}); EngineCoreSentinel.on_fault is not verified"
            )
        for dotted in self.extra_targets:
            try:
                patches.append(_Patch(self, dotted))
            except (ImportError, AttributeError) as exc:
                raise pytest.UsageError(f"--ftlint-verify-target {dotted}: cannot resolve: {exc}") from exc
        for p in patches:
            p.install()
        self.patches = patches
        if patches and self.status is None:
            names = ", ".join(p.dotted for p in patches)
            self.status = f"ftlint: verifying fault handlers: {names}"
        return bool(patches)

    def uninstall(self) -> None:
        for p in reversed(self.patches):
            p.uninstall()
        self.patches = []

    # -- recording ----------------------------------------------------
    def record(self, target: str, report: Any) -> None:
        with self._lock:
            self._pending.append((target, report))

    def note_unverifiable(self, target: str) -> None:
        with self._lock:
            self._unverifiable.append(target)

    def take(self) -> tuple[list[tuple[str, Any]], list[str]]:
        with self._lock:
            pending, self._pending = self._pending, []
            unverifiable, self._unverifiable = self._unverifiable, []
        return pending, unverifiable

    # -- hooks --------------------------------------------------------
    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if self.session_wide:
            self.install()

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self.uninstall()
        if self in _ACTIVE:
            _ACTIVE.remove(self)

    def pytest_report_header(self, config: pytest.Config) -> str | None:
        if not self.session_wide:
            return None
        if self.status is None:  # header comes before sessionstart's install
            self.install()
        return self.status

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: Any) -> Any:
        marker = item.get_closest_marker(MARKER)
        installed_here = removed_here = False
        self.strict = self.default_strict
        enabled = (
            True if marker is None else bool(marker.args[0] if marker.args else marker.kwargs.get("enabled", True))
        )
        if not enabled and self.patches:  # opted out: vLLM's own functions back
            self.uninstall()
            removed_here = True
        if marker is not None and enabled:
            self.strict = bool(marker.kwargs.get("strict", self.default_strict))
            if not self.patches:
                installed_here = self.install()
        self.test_reports = []
        try:
            return (yield)
        finally:
            if installed_here:
                self.uninstall()
            if removed_here:
                self.install()
            self.strict = self.default_strict

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: Any) -> Any:
        rep = yield
        pending, unverifiable = self.take()
        self.test_reports.extend(r for _, r in pending)
        strict = self.strict
        failing = [(t, r) for t, r in pending if r.failing(strict)]
        from .report import FaultInvariantError, FaultVerificationWarning

        for target, r in pending:
            if r.cannot_verify:
                item.warn(FaultVerificationWarning(f"{target}: cannot verify: " + "; ".join(r.cannot_verify)))
        for target in unverifiable:
            item.warn(FaultVerificationWarning(f"{target}: cannot verify: no scheduler found on the handler"))
        if not failing:
            return rep
        text = "\n".join(f"{t}:\n{r.format(strict)}" for t, r in failing)
        already = call.excinfo is not None and isinstance(call.excinfo.value, FaultInvariantError)
        if rep.passed:
            rep.outcome = "failed"
            rep.longrepr = (
                f"ftlint: a fault handler called during {call.when} broke "
                f"an invariant (the engine swallowed the error):\n{text}"
            )
        elif not already:
            rep.sections.append((f"ftlint fault-handler violations ({call.when})", text))
        return rep


# -- fixture ------------------------------------------------------------------


class FtVerifier:
    """The ``ft_verifier`` fixture: verification for one test.

    Requesting it wraps the fault handlers for this test (as the marker does);
    ``reports`` lists what the wrapped handlers produced so far; ``verify`` and
    ``observe`` are :func:`ftlint.runtime.verify_fault_handling` and
    :func:`ftlint.runtime.observe_fault_handling`.
    """

    def __init__(self, plugin: _Plugin) -> None:
        self._plugin = plugin

    @property
    def reports(self) -> list[Any]:
        pending = list(self._plugin._pending)
        return [*self._plugin.test_reports, *(r for _, r in pending)]

    @property
    def active(self) -> bool:
        return bool(self._plugin.patches)

    def verify(self, scheduler: Any, *, strict: bool | None = None, lock: Any = None):
        from .verify import verify_fault_handling

        return verify_fault_handling(scheduler, strict=self._plugin.strict if strict is None else strict, lock=lock)

    def observe(self, scheduler: Any, *, lock: Any = None):
        from .verify import observe_fault_handling

        return observe_fault_handling(scheduler, lock=lock)


@pytest.fixture
def ft_verifier(request: pytest.FixtureRequest):
    plugin = cast(_Plugin, request.config.pluginmanager.get_plugin(PLUGIN_NAME))  # registered in pytest_configure
    installed_here = False if plugin.patches else plugin.install()
    try:
        yield FtVerifier(plugin)
    finally:
        if installed_here:
            plugin.uninstall()
