"""Issue 16 item 11: a glob in `[tool.ftlint]` or `.gitignore` cannot stall a run. Patterns that
made the old regex translation backtrack for minutes (`**/**/…/a*a*a*a*a*a*b` against a deep path
of `a`s, `*a*a*a*a*a*a*a*a*b` against a long function name) are matched component by component
with committed wildcards. A hang guard (subprocess timeout), not a speed target; the glob
semantics themselves are tested in tests/test_config.py."""

from __future__ import annotations

import json
import subprocess

import pytest

from ftlint.core.gitignore import GlobError, compile_glob
from tests.helpers import run_ftlint

PATH_GLOB = "**/**/**/**/**/**/**/a*a*a*a*a*a*b"
NAME_GLOB = "*a*a*a*a*a*a*a*a*b"
DEPTH = 30
NAME = "a" * 60


def _deep_project(root):
    deep = root.joinpath(*["a" * 20] * DEPTH)
    deep.mkdir(parents=True)
    handler = (
        "def on_fault(engine):\n"
        "    engine.scheduler.finish_requests(None, 1)\n\n\n"
        f"def {NAME}(engine):\n"
        "    engine.scheduler.finish_requests(None, 1)\n"
    )
    (deep / f"{NAME}.py").write_text(handler)
    (root / ".gitignore").write_text(f"{PATH_GLOB}\n{NAME_GLOB}\n/{PATH_GLOB}\n")
    (root / "pyproject.toml").write_text(
        "[tool.ftlint]\n"
        f'exclude = ["{PATH_GLOB}", "{NAME_GLOB}"]\n'
        f'extend-exclude = ["{PATH_GLOB}"]\n'
        f'fault-paths = ["{PATH_GLOB}"]\n'
        f'fault-handlers = ["on_fault", "{NAME_GLOB}"]\n'
        f'per-file-ignores = {{"{PATH_GLOB}" = ["FT007"], "{NAME_GLOB}" = ["FT007"]}}\n'
    )
    return deep / f"{NAME}.py"


def test_backtracking_globs_finish_and_match_nothing(tmp_path):
    path = _deep_project(tmp_path)
    rel = path.relative_to(tmp_path).as_posix()
    try:
        proc = run_ftlint("check", "--no-cache", "--format", "json", ".", cwd=tmp_path, timeout=60)
    except subprocess.TimeoutExpired:
        raise AssertionError("ftlint did not finish in 60 s: a glob backtracks") from None
    assert proc.returncode == 1, proc.stderr
    found = sorted((f["path"], f["line"], f["code"]) for f in json.loads(proc.stdout))
    # none of the globs matches (no name ends in b): the file is walked, linted, not ignored,
    # and only `on_fault` is a handler
    assert found == [(rel, 2, "FT007")]


def test_the_same_globs_still_match_what_they_should():
    assert compile_glob(PATH_GLOB).fullmatch("x/y/aaaaaab")
    assert compile_glob(PATH_GLOB).fullmatch("axaxaxaxaxab")
    assert not compile_glob(PATH_GLOB).fullmatch("x/aaaaab")  # five a's before the b
    assert not compile_glob(PATH_GLOB).fullmatch("aaaaaab/x")
    assert compile_glob(NAME_GLOB).fullmatch("a" * 8 + "b")
    assert compile_glob(NAME_GLOB).fullmatch("xaxaxaxaxaxaxaxab")
    assert not compile_glob(NAME_GLOB).fullmatch("a" * 7 + "b")


def test_brace_alternatives_are_bounded():
    with pytest.raises(GlobError, match=r"more than 256 alternatives"):
        compile_glob("{a,b}" * 9)  # 512 alternatives
    assert compile_glob("{a,b}" * 8).fullmatch("ab" * 4)
