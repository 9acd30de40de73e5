"""Issue 24 item 3: `--exhaustive` (and any run past 2 s) shows progress on stderr when it
is a terminal (files done, files per second, one line overwritten and cleared at the
end); nothing on a pipe or with -q / -s, never on stdout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HANDLER = "class Sentinel:\n    def on_fault(self, exc):\n        self.scheduler.reset_prefix_cache()\n"


def _project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    (tmp_path / "sentinel.py").write_text(HANDLER)
    for i in range(20):
        (tmp_path / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    return tmp_path


def _run(cwd: Path, *args: str, tty: bool) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `ftlint check ARGS`, stderr a pty when `tty`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "ftlint", "check", "--no-cache", *args]
    if not tty:
        proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env, timeout=120)
        return proc.returncode, proc.stdout, proc.stderr
    master, slave = os.openpty()
    child = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    stdout = child.stdout.read().decode() if child.stdout else ""
    child.wait(timeout=120)
    return child.returncode, stdout, b"".join(chunks).decode()


def test_progress_on_a_terminal_only(tmp_path: Path):
    cwd = _project(tmp_path)
    code, stdout, stderr = _run(cwd, "--exhaustive", tty=True)
    assert code == 1 and "FT005" in stdout
    assert "files/s" in stderr and "\r\x1b[K" in stderr, stderr
    assert stderr.endswith("\r\x1b[K")  # the line is cleared at the end
    assert "files/s" not in stdout and "\x1b" not in stdout
    # on a pipe, or quiet: nothing
    code, stdout, stderr = _run(cwd, "--exhaustive", tty=False)
    assert code == 1 and "files/s" not in stderr + stdout and "\x1b" not in stderr
    for flag in ("-q", "-s"):
        code, stdout, stderr = _run(cwd, "--exhaustive", flag, tty=True)
        assert code == 1 and "files/s" not in stderr + stdout, (flag, stderr)
