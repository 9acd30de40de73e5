"""Issue 16, done-when: SIGKILL during `--fix` on many files, and two concurrent `--fix`
runs, never leave a file truncated or a user line lost.

Real processes (`python -m ftlint check --fix`) on a tree of files that each carry their
own user line: after a kill at any moment every file is either exactly as it was or exactly
fixed; after two runs at once every file is exactly fixed once.
"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

from tests.helpers import FTLINT, NEIGHBOURS, NEIGHBOURS_FIXED, ftlint_env, run_ftlint

FILES = 120


def original(i: int) -> str:
    return f"# user line {i}: keep me\n" + NEIGHBOURS


def fixed(i: int) -> str:
    return f"# user line {i}: keep me\n" + NEIGHBOURS_FIXED


def make_tree(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[tool.ftlint]\n")
    for i in range(FILES):
        (root / f"m{i:03}.py").write_text(original(i))
    return root


def start_fix(root: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [*FTLINT, "check", "--fix", "--format", "json", "."],
        cwd=root,
        env=ftlint_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def states(root: Path) -> list[str]:
    """Per file: 'original' or 'fixed'; anything else fails the test with the file's text."""
    found = []
    for i in range(FILES):
        text = (root / f"m{i:03}.py").read_text()
        if text == original(i):
            found.append("original")
        elif text == fixed(i):
            found.append("fixed")
        else:
            raise AssertionError(f"m{i:03}.py is neither the original nor the fixed file:\n{text!r}")
    return found


def test_sigkill_during_fix_never_leaves_a_damaged_file(tmp_path):
    calibrate = make_tree(tmp_path / "calibrate")
    began = time.monotonic()
    done = start_fix(calibrate)
    assert done.wait(timeout=600) == 0, done.stderr.read()
    whole = time.monotonic() - began
    assert states(calibrate) == ["fixed"] * FILES
    # First, kill as soon as a file has changed (watching the tree): the writes take a few
    # milliseconds of a run whose length varies by more than that from run to run on a
    # busy host, so a kill timed from the start alone often lands before or after them.
    mixed = 0
    for trial in range(4):
        root = make_tree(tmp_path / f"watched{trial}")
        before = {p.name: p.stat().st_mtime_ns for p in root.glob("m*.py")}
        proc = start_fix(root)
        deadline = time.monotonic() + 600
        while proc.poll() is None and time.monotonic() < deadline:
            if any(p.stat().st_mtime_ns != before[p.name] for p in root.glob("m*.py")):
                proc.send_signal(signal.SIGKILL)
                break
        proc.wait(timeout=60)
        found = states(root)  # never a truncated or half-fixed file
        mixed += 0 < found.count("fixed") < FILES
        leftovers = [p.name for p in root.iterdir() if p.name.endswith(".py") and not p.name.startswith("m")]
        assert leftovers == []
        if mixed >= 2:
            break
    # Then search for a kill time that lands while files are being written (some fixed, some not).
    low, high = 0.0, whole
    for trial in range(14 if mixed < 2 else 0):
        root = make_tree(tmp_path / f"trial{trial}")
        delay = (low + high) / 2
        proc = start_fix(root)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        found = states(root)  # never a truncated or half-fixed file
        done_files = found.count("fixed")
        if done_files == 0:
            low = delay
        elif done_files == FILES:
            high = delay
        else:
            mixed += 1
            low, high = delay - (high - low) / 4, delay + (high - low) / 4
        leftovers = [p.name for p in root.iterdir() if p.name.endswith(".py") and not p.name.startswith("m")]
        assert leftovers == []
        if mixed >= 2:
            break
    assert mixed, f"no kill landed while files were written (run took {whole:.2f}s)"


def test_two_concurrent_fix_runs_never_lose_a_line(tmp_path):
    # the second run starts a little later too: it lints the original files while the
    # first one is about to write them (what an unsafe writer gets wrong)
    for attempt, stagger in enumerate((0.0, 0.3, 0.8)):
        root = make_tree(tmp_path / f"run{attempt}")
        first = start_fix(root)
        time.sleep(stagger)
        second = start_fix(root)
        results = [(p.wait(timeout=600), p.stderr.read()) for p in (first, second)]
        for code, err in results:
            assert "Traceback" not in err, err
            assert code in (0, 1), err
        assert states(root) == ["fixed"] * FILES
        again = run_ftlint("check", "--no-cache", ".", cwd=root)
        assert again.returncode == 0, again.stdout + again.stderr
