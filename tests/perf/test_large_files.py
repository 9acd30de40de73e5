"""Issue 16 item 14: a multi-megabyte file is bounded in time and memory. Passed explicitly
or walked, only its fault-path functions are parsed with LibCST (a file that cannot hold a
handler is not parsed at all); with --exhaustive, a file past `exhaustive-max-mb` is not
parsed whole with LibCST (minutes and gigabytes for 9 MB) but reported FT000 and linted as
a normal run lints it, so its findings stay."""

from __future__ import annotations

import json

from tests.helpers import run_ftlint

HANDLER = "class Sentinel:\n    def on_fault(self, exc):\n        self.scheduler.reset_prefix_cache()\n\n"
FT005 = (
    "Fault path calls `reset_prefix_cache()`: it drops the next output frame and empties the whole "
    "prefix cache instead of the dirty tail"
)


def _code(functions: int) -> str:
    """Dense code (what makes LibCST slow and big), about 70 bytes a function."""
    return "".join(f"def f{i}(a, b):\n    return [a, b, {i}][0] * b + {i}\n\n" for i in range(functions))


def _findings(*args, cwd):
    proc = run_ftlint("check", "--format", "json", *args, cwd=cwd)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, [
        (f["path"], f["line"], f["column"], f["code"], f["message"]) for f in json.loads(proc.stdout)
    ]


def test_multi_megabyte_files_explicit_and_exhaustive(tmp_path):
    body = _code(45_000)
    (tmp_path / "big.py").write_text(HANDLER + body)
    (tmp_path / "big_plain.py").write_text(body + "def broken(:\n")  # no handler, a syntax error at the end
    assert (tmp_path / "big.py").stat().st_size > 2_500_000
    found = ("big.py", 3, 9, "FT005", FT005)
    # explicit, as pre-commit passes them: the handler file is outlined, the other not parsed
    assert _findings("big.py", "big_plain.py", cwd=tmp_path) == (1, [found])
    # --exhaustive: both past the 2 MB default, so FT000 each and the handler's finding still there
    code, findings = _findings("--exhaustive", "big.py", "big_plain.py", cwd=tmp_path)
    assert code == 1
    assert findings[1] == found
    too_large = [f for f in findings if f[3] == "FT000"]
    assert [(f[0], f[1], f[2]) for f in too_large] == [("big.py", 1, 1), ("big_plain.py", 1, 1)]
    size = (tmp_path / "big.py").stat().st_size / 1e6
    assert too_large[0][4] == (
        f"too large to parse with LibCST under --exhaustive ({size:.1f} MB > 2 MB): linted as without "
        "--exhaustive (only its fault-path functions parsed); raise the limit with --exhaustive-max-mb "
        "or exhaustive-max-mb"
    )
    # the limit is configurable (flag, config); one FT000 a file: a syntax error found anyway wins
    (tmp_path / "small.py").write_text(_code(100))
    (tmp_path / "small_broken.py").write_text(HANDLER + _code(100) + "def broken(:\n")
    code, findings = _findings(
        "--exhaustive", "--exhaustive-max-mb", "0.001", "small.py", "small_broken.py", cwd=tmp_path
    )
    assert [(f[0], f[3], f[4].split(" (")[0].split(":")[0]) for f in findings] == [
        ("small.py", "FT000", "too large to parse with LibCST under --exhaustive"),
        ("small_broken.py", "FT000", "syntax error"),
    ]
    assert _findings("--exhaustive", "small.py", cwd=tmp_path) == (0, [])
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\nexhaustive-max-mb = 0.001\n")
    code, findings = _findings("--exhaustive", "small.py", cwd=tmp_path)
    assert [f[4].split(" (")[0] for f in findings] == ["too large to parse with LibCST under --exhaustive"]


def test_exhaustive_max_mb_must_be_positive(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\nexhaustive-max-mb = 0\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    proc = run_ftlint("check", "a.py", cwd=tmp_path)
    assert proc.returncode == 2 and "exhaustive-max-mb" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_ftlint("check", "--exhaustive-max-mb", "-1", "a.py", cwd=tmp_path / "..")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
