"""Fix time and peak memory on one file with many fixable findings and on a ~9 MB file
(issue 23): `python benchmarks/bench_fixes.py [findings] [megabytes]` prints, per mode
(check, --fix, --diff, --add-noqa), the wall time and the peak RSS of the ftlint process.
Each run works on a fresh copy in a temporary directory."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAD = "class Sentinel:\n    def on_fault(self, exc):\n        s = self.scheduler\n        for r in list(s.running):\n"


def many_findings(count: int) -> str:
    return HEAD + "".join(
        f"            r.drop_stale_output = True  # {i}\n            x{i} = 1\n" for i in range(count)
    )


def large_file(megabytes: float) -> str:
    filler = "".join(f"def helper_{i}(a, b):\n    return a + b * {i}\n\n\n" for i in range(2000))
    body = HEAD + "            r.drop_stale_output = True\n\n\n"
    while len(body) < megabytes * 1_000_000:
        body += filler
    return body


def run(mode: list[str], text: str) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sentinel.py"
        path.write_text(text)
        (Path(tmp) / "pyproject.toml").write_text("[tool.ftlint]\n")
        start = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-m", "ftlint", "check", "--no-cache", *mode, str(path)],
            cwd=tmp,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
        )
        _, _, usage = os.wait4(child.pid, 0)  # this child's own peak, not the largest so far
        child.returncode = 0
        seconds = time.perf_counter() - start
        return seconds, usage.ru_maxrss / 1024  # MiB (ru_maxrss is KiB on Linux)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    megabytes = float(sys.argv[2]) if len(sys.argv) > 2 else 9
    assert shutil.which(sys.executable)
    for label, text in (
        (f"{count} fixable findings", many_findings(count)),
        (f"{megabytes} MB", large_file(megabytes)),
    ):
        for mode in ([], ["--fix"], ["--diff"], ["--add-noqa"]):
            seconds, mib = run(mode, text)
            print(f"{label:>24} {' '.join(mode) or 'check':>10}: {seconds:7.2f} s, peak RSS {mib:7.0f} MiB", flush=True)


if __name__ == "__main__":
    main()
