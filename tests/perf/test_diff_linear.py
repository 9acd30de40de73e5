"""`--diff` is built from where the fixes changed the text, so its time grows with the file,
not faster (issue 23: difflib over the whole file took 5 s on 0.5 MB, 244 s on 2 MB and did
not finish on 9 MB). The figures are in benchmarks/bench_big_file.py and bench_fixes.py;
these tests compare two sizes and count what difflib is given."""

from __future__ import annotations

import difflib
import time
from pathlib import Path

from ftlint.core.config import load_config
from ftlint.core.finding import Edit
from ftlint.lint.fix_runner import fix_paths
from ftlint.syntax import textedits


def unit(i: int) -> str:
    """A handler with one fixable line, then plain functions (38 lines, many of them equal)."""
    filler = "".join(f"def util_{i}_{k}(a, b):\n    return [a, b, {k}][0] * b + {i}\n\n\n" for k in range(8))
    return (
        f"class Sentinel{i}:\n    def on_fault(self, exc):\n        s = self.scheduler\n"
        f"        for r in list(s.running):\n            r.drop_stale_output = True\n\n\n" + filler
    )


LINES = 39  # in a unit


def diff_seconds(units: int) -> float:
    """The best of 5 (CPU time) for the diff of `units` units, each with one line fixed."""
    text = "".join(unit(i) for i in range(units))
    fix = "            r.num_stale_output_tokens = 0\n"
    combined = textedits.combine(text, [(Edit(i * LINES + 5, 1, i * LINES + 6, 1, fix),) for i in range(units)])
    assert len(combined.applied) == units
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        diff = textedits.unified_diff("s.py", text, combined.text, combined.changes)
        best = min(best, time.process_time() - start)
    assert diff.count("\n+            r.num_stale_output_tokens = 0\n") == units
    return best


def test_diff_time_grows_like_the_file():
    small, large = diff_seconds(400), diff_seconds(1600)  # 15,600 and 62,400 lines
    # 4 times the file and the fixes: about 4 times the time (difflib's took about 18 times)
    assert large < 8 * small, (small, large)


def test_diff_gives_difflib_no_whole_file(tmp_path: Path, monkeypatch):
    path = tmp_path / "sentinels.py"
    path.write_text("".join(unit(i) for i in range(40)))
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    compared = []
    original = difflib.SequenceMatcher

    def matcher(*args, **kwargs):
        compared.append(len(kwargs.get("a", args[1] if len(args) > 1 else ())))
        return original(*args, **kwargs)

    monkeypatch.setattr(difflib, "SequenceMatcher", matcher)
    monkeypatch.chdir(tmp_path)
    result, diff = fix_paths([path], load_config(tmp_path), {"FT001"}, write=False)
    assert result.fixes_applied == 40
    assert diff.count("\n-            r.drop_stale_output = True\n") == 40
    assert max(compared) < 50  # each fix's statement, never the 1,560-line file
