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

import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

import pytest

from .wrap import ACTIVE, DEFAULT_TARGET, Patch, find_lock, find_scheduler, resolve_target

if TYPE_CHECKING:
    from .verify import FaultObservation

__all__ = ["DEFAULT_TARGET", "find_lock", "find_scheduler", "resolve_target"]

PLUGIN_NAME = "ftlint-verifier"
MARKER = "ftlint_verify"
DEFAULT_TIMEOUT = 300.0  # longer than vLLM's engine_recovery_timeout_sec default (120 s)


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
    group.addoption(
        "--ftlint-verify-timeout",
        type=float,
        default=None,
        dest="ftlint_verify_timeout",
        metavar="SECONDS",
        help=f"a verified fault handler still running after SECONDS is interrupted and fails the test "
        f"(default {DEFAULT_TIMEOUT:g}; 0: no limit).",
    )
    parser.addini("ftlint_verify", "verify every vLLM fault handler (like --ftlint-verify)", type="bool", default=False)
    parser.addini(
        "ftlint_verify_targets", "extra fault handlers to verify, one dotted name a line", type="linelist", default=[]
    )
    parser.addini("ftlint_verify_strict", "fail on FTR02 too", type="bool", default=False)
    parser.addini("ftlint_verify_timeout", "seconds a verified fault handler may run (0: no limit)", default="")


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
    ACTIVE.append(plugin)  # innermost session last (pytester runs nest)


def _timeout(config: pytest.Config) -> float | None:
    value = config.getoption("ftlint_verify_timeout")
    if value is None:
        ini = str(config.getini("ftlint_verify_timeout")).strip()
        try:
            value = float(ini) if ini else DEFAULT_TIMEOUT
        except ValueError as exc:
            raise pytest.UsageError(f"ftlint_verify_timeout = {ini!r}: not a number of seconds") from exc
    if value < 0:
        raise pytest.UsageError(f"--ftlint-verify-timeout {value:g}: must be 0 (no limit) or more")
    return value or None


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
        self.timeout = _timeout(config)
        self.patches: list[Patch] = []
        self.status: str | None = None
        self._lock = threading.Lock()
        self._pending: list[tuple[str, Any]] = []
        self._unverifiable: list[str] = []
        self.test_reports: list[Any] = []
        self.pid = os.getpid()  # a forked child holds a copy: ftlint.runtime.procs tells them apart
        # child processes (vLLM engine cores, Ray tasks) report to this directory
        self.sink: str | None = None
        self._sink_offsets: dict[str, int] = {}
        self._saved_env: dict[str, str | None] | None = None
        self._late: list[str] = []

    # -- installing ---------------------------------------------------
    def install(self) -> bool:
        if self.patches:
            return True
        patches = []
        try:
            patches.append(Patch(self, DEFAULT_TARGET))
        except ImportError as exc:
            self.status = (
                f"ftlint: --ftlint-verify: vLLM is not importable ({exc}); EngineCoreSentinel.on_fault is not verified"
            )
        for dotted in self.extra_targets:
            try:
                patches.append(Patch(self, dotted))
            except (ImportError, AttributeError) as exc:
                raise pytest.UsageError(f"--ftlint-verify-target {dotted}: cannot resolve: {exc}") from exc
        for p in patches:
            p.install()
        self.patches = patches
        self._export_env()
        if patches and self.status is None:
            names = ", ".join(p.dotted for p in patches)
            self.status = f"ftlint: verifying fault handlers: {names}"
        return bool(patches)

    def uninstall(self) -> None:
        for p in reversed(self.patches):
            p.uninstall()
        self.patches = []
        self._restore_env()

    # -- child processes (ftlint.runtime.procs) -----------------------------
    def _export_env(self) -> None:
        from . import procs

        if self._saved_env is not None:
            return
        if self.sink is None:
            self.sink = tempfile.mkdtemp(prefix="ftlint-verify-")
        values = {
            procs.ENV_SINK: self.sink,
            procs.ENV_TARGETS: ",".join(self.extra_targets),
            procs.ENV_STRICT: "1" if self.strict else "0",
            procs.ENV_TIMEOUT: f"{self.timeout or 0:g}",
        }
        self._saved_env = {k: os.environ.get(k) for k in values}
        os.environ.update(values)

    def _restore_env(self) -> None:
        saved, self._saved_env = self._saved_env, None
        for key, value in (saved or {}).items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value

    def child_records(self) -> list[dict[str, Any]]:
        from . import procs

        return procs.read_records(self.sink, self._sink_offsets) if self.sink else []

    # -- recording ----------------------------------------------------
    def record(self, target: str, report: Any, owner: Any = None) -> None:
        with self._lock:
            self._pending.append((target, report))

    def note_unverifiable(self, target: str, owner: Any = None) -> None:
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
        if self.sink is not None:
            shutil.rmtree(self.sink, ignore_errors=True)
        if self in ACTIVE:
            ACTIVE.remove(self)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Records written after the last test's teardown (a child that outlived its test)."""
        from .procs import FAILING_KINDS, describe

        late = [describe(r) for r in self.child_records() if r.get("kind") in FAILING_KINDS]
        if not late:
            return
        self._late = late
        session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        late = self._late
        if late:
            terminalreporter.section("ftlint: fault-handler violations reported after the last test", red=True)
            for text in late:
                terminalreporter.line(text)

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
        from .procs import ENV_TEST

        previous_test = os.environ.get(ENV_TEST)
        os.environ[ENV_TEST] = item.nodeid
        try:
            return (yield)
        finally:
            if previous_test is None:
                os.environ.pop(ENV_TEST, None)
            else:
                os.environ[ENV_TEST] = previous_test
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
        failing = [(t, r) for t, r in pending if r.failing(strict) or r.timed_out]
        from .report import FaultInvariantError, FaultVerificationWarning

        for target, r in pending:
            if r.cannot_verify:
                item.warn(FaultVerificationWarning(f"{target}: cannot verify: " + "; ".join(r.cannot_verify)))
        for target in unverifiable:
            item.warn(FaultVerificationWarning(f"{target}: cannot verify: no scheduler found on the handler"))
        from . import procs
        from .procs import describe

        child_failing = []
        for rec in self.child_records():
            if rec.get("kind") in procs.FAILING_KINDS:
                child_failing.append(describe(rec))
            else:
                item.warn(FaultVerificationWarning(describe(rec).replace("\n  ", ": ")))
        if not failing and not child_failing:
            return rep
        text = "\n".join([*(f"{t}:\n{r.format(strict)}" for t, r in failing), *child_failing])
        if child_failing and not failing:
            header = f"ftlint: a fault handler in another process broke an invariant during {call.when}"
            if rep.passed:
                rep.outcome = "failed"
                rep.longrepr = f"{header}:\n{text}"
            else:
                rep.sections.append((f"ftlint fault-handler violations in child processes ({call.when})", text))
            return rep
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

    def verify(self, scheduler: Any, *, strict: bool | None = None, lock: Any = None) -> FaultObservation:
        from .verify import verify_fault_handling

        return verify_fault_handling(scheduler, strict=self._plugin.strict if strict is None else strict, lock=lock)

    def observe(self, scheduler: Any, *, lock: Any = None) -> FaultObservation:
        from .verify import observe_fault_handling

        return observe_fault_handling(scheduler, lock=lock)


@pytest.fixture
def ft_verifier(request: pytest.FixtureRequest) -> Iterator[FtVerifier]:
    plugin = cast(_Plugin, request.config.pluginmanager.get_plugin(PLUGIN_NAME))  # registered in pytest_configure
    installed_here = False if plugin.patches else plugin.install()
    try:
        yield FtVerifier(plugin)
    finally:
        if installed_here:
            plugin.uninstall()
