"""Issue 16 item 15: an exception no code path expects, in any subcommand, is one line
`ftlint: internal error: ...` on stderr and exit 2 (1 would read as "findings"); the traceback
only with FTLINT_DEBUG=1. Provoked for real, in a subprocess: a run from a directory that was
deleted (`Path.cwd()` fails), and a report written to a full device (/dev/full)."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.helpers import FTLINT, ftlint_env, git, run_ftlint

HANDLER = "def on_fault(engine):\n    engine.scheduler.reset_prefix_cache()\n"
needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="Linux /dev/full")


def _from_deleted_directory(tmp_path, *args: str, debug: bool = False) -> subprocess.CompletedProcess:
    gone = tmp_path / "gone"
    gone.mkdir()
    script = 'cd "$1" && rmdir "$1" && shift && exec "$@"'
    return subprocess.run(
        ["sh", "-c", script, "sh", str(gone), *FTLINT, *args],
        env=ftlint_env({"FTLINT_DEBUG": "1"} if debug else None),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_from_a_deleted_directory(tmp_path):
    proc = _from_deleted_directory(tmp_path, "check")
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "ftlint: internal error: FileNotFoundError: [Errno 2] No such file or directory"
    ]
    assert proc.stdout == ""


def test_debug_adds_the_traceback(tmp_path):
    proc = _from_deleted_directory(tmp_path, "check", debug=True)
    assert proc.returncode == 2
    assert proc.stderr.startswith("Traceback (most recent call last):")
    assert "Path.cwd()" in proc.stderr  # where it was raised
    assert (
        proc.stderr.splitlines()[-1] == "ftlint: internal error: FileNotFoundError: [Errno 2] No such file or directory"
    )


@needs_dev_full
@pytest.mark.parametrize("command", ["check", "rule", "review"])
def test_report_to_a_full_device(tmp_path, command):
    (tmp_path / "h.py").write_text("x = 1\n")
    args = {"check": ["check", "h.py"], "rule": ["rule", "FT005"], "review": ["review", "--base", "HEAD"]}[command]
    if command == "review":
        git("init", "-q", "-b", "main", cwd=tmp_path)
        git("add", "-A", cwd=tmp_path)
        git("commit", "-q", "-m", "base", cwd=tmp_path)
    (tmp_path / "h.py").write_text(HANDLER)  # a finding to write
    with open("/dev/full", "w") as full:
        proc = run_ftlint(*args, cwd=tmp_path, stdout=full, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == ["ftlint: internal error: OSError: [Errno 28] No space left on device"]
