"""A ~9 MB Python file with many fault-path functions holding fixable findings (issue 23:
"a 9 MB file under 2 GB in every mode"): `python benchmarks/bench_big_file.py [megabytes]`
prints, per mode (check, --fix, --diff, --add-noqa), the wall time and the peak RSS of the
ftlint process (that child's own ru_maxrss, from os.wait4). Each mode works on a fresh copy
in a temporary directory. `--write PATH` only writes the generated file."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODES: tuple[tuple[str, ...], ...] = ((), ("--fix",), ("--diff",), ("--add-noqa",))


def unit(i: int) -> str:
    """One handler class: a fault handler and a helper it calls, each with a fixable FT001
    finding, then plain functions no fault path reaches (about 2 KB in all)."""
    filler = "".join(f"def util_{i}_{k}(a, b):\n    return [a, b, {k}][0] * b + {i}\n\n\n" for k in range(30))
    return (
        f"class Sentinel{i}:\n"
        "    def on_fault(self, exc):\n"
        "        s = self.scheduler\n"
        "        for r in list(s.running):\n"
        "            r.drop_stale_output = True\n"
        f"            self._drain_{i}(s, r)\n"
        "\n"
        f"    def _drain_{i}(self, s, r):\n"
        f"        s._preempt_request(r, 0.0, drop_stale_output=True)\n"
        f"        return [r, {i}][0]\n"
        "\n\n" + filler
    )


def big_file(megabytes: float) -> str:
    parts: list[str] = []
    size = 0
    i = 0
    while size < megabytes * 1_000_000:
        part = unit(i)
        parts.append(part)
        size += len(part)
        i += 1
    return "".join(parts)


def run(mode: tuple[str, ...], text: str) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sentinels.py"
        path.write_text(text)
        (Path(tmp) / "pyproject.toml").write_text("[tool.ftlint]\n")
        start = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-m", "ftlint", "check", "--no-cache", "-q", *mode, str(path)],
            cwd=tmp,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
        )
        _, status, usage = os.wait4(child.pid, 0)  # this child's own peak
        child.returncode = os.waitstatus_to_exitcode(status)
        return time.perf_counter() - start, usage.ru_maxrss / 1024, child.returncode


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["--write"]:
        Path(args[1]).write_text(big_file(float(args[2]) if len(args) > 2 else 9))
        return
    megabytes = float(args[0]) if args else 9
    text = big_file(megabytes)
    print(f"{len(text) / 1e6:.1f} MB, {text.count('class Sentinel')} handler classes", flush=True)
    for mode in MODES:
        seconds, mib, code = run(mode, text)
        label = " ".join(mode) or "check"
        print(f"{label:>10}: {seconds:7.2f} s, peak RSS {mib:7.0f} MiB (exit {code})", flush=True)


if __name__ == "__main__":
    main()
