"""Verification in the processes vLLM starts (engine cores, workers, Ray tasks).

vLLM calls ``vllm.plugins.load_general_plugins()`` in every process it starts;
ftlint registers :func:`load` as a ``vllm.general_plugins`` entry point.  When
``FTLINT_VERIFY_SINK`` (a directory) is set, which ``pytest --ftlint-verify``
does for its child processes, the fault handlers in this process are wrapped
exactly as in the test process, and every failing violation and every "cannot
verify" is written to the sink as one JSON line: one file per process, each
record one ``os.write`` on an ``O_APPEND`` descriptor, so a record written
survives the process dying.  The pytest plugin reads the records after each
test phase and fails the test that was running.  No variable set: nothing is
imported or wrapped.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from typing import Any

ENV_SINK = "FTLINT_VERIFY_SINK"
ENV_TARGETS = "FTLINT_VERIFY_TARGETS"  # comma-separated dotted names
ENV_STRICT = "FTLINT_VERIFY_STRICT"  # "1": FTR02 fails too
ENV_TIMEOUT = "FTLINT_VERIFY_TIMEOUT"  # seconds; 0 or unset: no limit
FAILING_KINDS = ("violation", "timeout")
ENV_TEST = "FTLINT_VERIFY_TEST"  # the test that was running when the process started
ENV_DP_RANK = "VLLM_DP_RANK"  # vLLM's own variable (external DP launchers set it)
_PARALLEL_CONFIG_PATHS = (
    ("parallel_config",),
    ("engine", "vllm_config", "parallel_config"),
    ("vllm_config", "parallel_config"),
)

_RECORDER: SinkRecorder | None = None


def dp_rank(owner: Any) -> int | None:
    """The data-parallel rank of the engine the handler belongs to: from the parallel config
    the handler's object holds (vLLM's sentinel holds it) when data parallelism is on, else
    ``VLLM_DP_RANK`` when set, else None."""
    for path in _PARALLEL_CONFIG_PATHS:
        cur = owner
        for name in path:
            cur = getattr(cur, name, None)
        size = getattr(cur, "data_parallel_size", None)
        rank = getattr(cur, "data_parallel_rank", None)
        if isinstance(size, int) and size > 1 and isinstance(rank, int):
            return rank
    env = os.environ.get(ENV_DP_RANK, "").strip()
    return int(env) if env.isdigit() else None


class SinkRecorder:
    """The recorder of a child process (see :mod:`ftlint.runtime.wrap`)."""

    def __init__(self, sink: str, targets: list[str], strict: bool, timeout: float | None = None) -> None:
        self.sink = sink
        self.timeout = timeout
        self.extra_targets = targets
        self.strict = strict
        self.patches: list[Any] = []
        self._fd: int | None = None
        self._fd_pid = -1
        self._lock = threading.Lock()

    def install(self) -> None:
        from .wrap import DEFAULT_TARGET, Patch

        problems = []
        for dotted in [DEFAULT_TARGET, *self.extra_targets]:
            try:
                self.patches.append(Patch(self, dotted))
            except (ImportError, AttributeError) as exc:
                problems.append((dotted, f"cannot resolve: {type(exc).__name__}: {exc}"))
        for p in self.patches:
            p.install()
        for dotted, why in problems:
            self.write({"kind": "cannot_verify", "target": dotted, "code": None, "message": why, "dp_rank": None})

    # -- writing ---------------------------------------------------------
    def _descriptor(self) -> int:
        pid = os.getpid()
        if self._fd is None or self._fd_pid != pid:  # first record, or a fork's child
            name = f"{socket.gethostname()}-{pid}-{time.monotonic_ns()}.jsonl"
            self._fd = os.open(os.path.join(self.sink, name), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            self._fd_pid = pid
        return self._fd

    def write(self, record: dict[str, Any]) -> None:
        record = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "test": os.environ.get(ENV_TEST),
            "time": time.time(),
            **record,
        }
        line = (json.dumps(record, default=str) + "\n").encode()
        with self._lock:
            os.write(self._descriptor(), line)  # one write on an O_APPEND fd: whole or absent

    def record(self, target: str, report: Any, owner: Any = None) -> None:
        rank = dp_rank(owner)
        for v in report.failing(self.strict):
            self.write({"kind": "violation", "target": target, "code": v.code, "message": str(v), "dp_rank": rank})
        for reason in report.cannot_verify:
            kind = "timeout" if report.timed_out and "did not return within" in reason else "cannot_verify"
            self.write({"kind": kind, "target": target, "code": None, "message": reason, "dp_rank": rank})

    def note_unverifiable(self, target: str, owner: Any = None) -> None:
        self.write(
            {
                "kind": "cannot_verify",
                "target": target,
                "code": None,
                "message": "no scheduler found on the handler",
                "dp_rank": dp_rank(owner),
            }
        )


def load() -> None:
    """The ``vllm.general_plugins`` entry point: vLLM calls it in every process it starts."""
    global _RECORDER
    sink = os.environ.get(ENV_SINK)
    if not sink or _RECORDER is not None:
        return
    from .wrap import ACTIVE

    if ACTIVE and getattr(ACTIVE[-1], "pid", None) == os.getpid():
        return  # the test process itself: the pytest plugin already verifies here
    targets = [t.strip() for t in os.environ.get(ENV_TARGETS, "").split(",") if t.strip()]
    try:
        timeout = float(os.environ.get(ENV_TIMEOUT) or 0) or None
    except ValueError:
        timeout = None
    recorder = SinkRecorder(sink, targets, os.environ.get(ENV_STRICT) == "1", timeout)
    _RECORDER = recorder
    ACTIVE.append(recorder)
    recorder.install()


def read_records(sink: str, offsets: dict[str, int]) -> list[dict[str, Any]]:
    """New complete records in ``sink`` since ``offsets`` (updated in place), oldest first."""
    out: list[dict[str, Any]] = []
    try:
        names = sorted(os.listdir(sink))
    except OSError:
        return out
    for name in names:
        if not name.endswith(".jsonl"):
            continue
        path = os.path.join(sink, name)
        try:
            with open(path, "rb") as f:
                f.seek(offsets.get(name, 0))
                data = f.read()
        except OSError:
            continue
        end = data.rfind(b"\n") + 1  # a record is whole once its newline is there
        offsets[name] = offsets.get(name, 0) + end
        for line in data[:end].splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict):
                out.append(rec)
    out.sort(key=lambda r: r.get("time") or 0)
    return out


def describe(rec: dict[str, Any]) -> str:
    rank = rec.get("dp_rank")
    where = f"process {rec.get('pid')} on {rec.get('host')}, DP rank {rank if rank is not None else 'unknown'}"
    what = rec.get("message")
    if rec.get("kind") == "cannot_verify":
        what = f"cannot verify: {what}"
    return f"{rec.get('target')} ({where}):\n  {what}"
