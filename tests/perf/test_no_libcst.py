"""A process whose files hold no fault path answers without LibCST (issue 24 item 1): no
file passes the prefilter, so nothing is parsed and `libcst` is never imported (checked
in the child's `-X importtime` report, every module it imported). Files named one by one
in a project still import it while the forked scan runs (scan.py: the project may hold a
handler that reaches them, and its scope is LibCST's); the same files with a
handler added still import it and give the handler's findings; with or without a cache,
explicit or walked, the answer is the same."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import EXAMPLE, ftlint_env, write_project

PLAIN = {
    "pkg/__init__.py": "",
    "pkg/a.py": "def add(a, b):\n    return a + b\n",
    "pkg/b.py": "import os\n\n\ndef where():\n    return os.getcwd()\n",
    # names a handler in a string and a comment only: no `def on_fault`
    "pkg/c.py": "# on_fault is vLLM's\nNAME = 'on_fault'\n",
}


def _check(root: Path, *args: str) -> tuple[list[str], int, list[dict]]:
    """(the modules `python -X importtime -m ftlint check ARGS` imported, its exit status,
    its JSON findings)."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ftlint", "check", "--format", "json", *args],
        cwd=root,
        env=ftlint_env({"FTLINT_NO_CACHE": None}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode in (0, 1), run.stderr
    imported = [line.rsplit("|", 1)[1].strip() for line in run.stderr.splitlines() if line.startswith("import time:")]
    return imported, run.returncode, json.loads(run.stdout)


def _libcst(imported: list[str]) -> list[str]:
    return [name for name in imported if name == "libcst" or name.startswith("libcst.")]


@pytest.mark.parametrize(
    "args",
    [
        ("--no-cache",),
        ("--no-cache", "pkg"),
        ("--cache-dir", "cache"),
    ],
    ids=["walk", "directory", "cached"],
)
def test_no_fault_path_no_libcst(tmp_path: Path, args: tuple[str, ...]) -> None:
    root = write_project(tmp_path / "proj", PLAIN)
    imported, status, found = _check(root, *args)
    assert "ftlint.lint.engine" in imported  # the report is the child's whole run
    assert _libcst(imported) == []
    assert (status, found) == (0, [])
    if "--cache-dir" in args:  # the cached answer: still nothing parsed, nothing imported
        imported, status, found = _check(root, *args)
        assert _libcst(imported) == [] and (status, found) == (0, [])


@pytest.mark.parametrize("explicit", [False, True], ids=["walk", "explicit"])
def test_same_files_with_a_handler_lint_it(tmp_path: Path, explicit: bool) -> None:
    files = dict(PLAIN)
    files["pkg/handler.py"] = EXAMPLE.read_text(encoding="utf-8")
    root = write_project(tmp_path / "proj", files)
    args = ("--no-cache", *(sorted(files) if explicit else ()))
    imported, status, found = _check(root, *args)
    assert "libcst" in imported
    assert status == 1
    assert found and {f["path"] for f in found} == {"pkg/handler.py"}
    # the example file alone gives the same findings: the plain files change nothing
    alone = write_project(tmp_path / "alone", {"pkg/__init__.py": "", "pkg/handler.py": files["pkg/handler.py"]})
    _, _, found_alone = _check(alone, "--no-cache")

    def key(f: dict) -> tuple:
        return (f["path"], f["code"], f["line"], f["column"], f["message"])

    assert sorted(map(key, found)) == sorted(map(key, found_alone))


HANDLER = """\
from pkg.helpers import drop_all

class Sentinel:
    def on_fault(self, exc):
        if exc is None:
            drop_all(self.scheduler)  # empties the whole prefix cache (FT005, in the helper)
            return
        self.scheduler.finish_requests(None, "aborted")
"""
HELPERS = "def drop_all(s):\n    s.reset_prefix_cache()\n"
GUARD = """\
from pkg.cleanup import drop_all_here

def run_busy_loop(engine):
    while True:
        try:
            engine.step()
        except Exception:
            drop_all_here(engine.scheduler)
"""
CLEANUP = "def drop_all_here(s):\n    s.reset_prefix_cache()\n"
SUBCLASS = "from pkg.handler import Sentinel\n\n\nclass Mine(Sentinel):\n    def helper(self):\n        pass\n"


def _project(tmp_path: Path) -> Path:
    files = {**PLAIN, "pkg/handler.py": HANDLER, "pkg/helpers.py": HELPERS, "pkg/sub.py": SUBCLASS}
    files.update({"pkg/guard.py": GUARD, "pkg/cleanup.py": CLEANUP})
    return write_project(tmp_path / "proj", files)


def test_files_a_handler_elsewhere_does_not_reach(tmp_path: Path) -> None:
    """pre-commit's call on files of a project whose handler lives elsewhere and reaches
    none of them: the scope followed with `ast` says so, LibCST is not imported."""
    root = _project(tmp_path)
    imported, status, found = _check(root, "--no-cache", "pkg/a.py", "pkg/b.py", "pkg/c.py")
    assert _libcst(imported) == [] and (status, found) == (0, [])


@pytest.mark.parametrize(
    "files",
    [("pkg/helpers.py",), ("pkg/a.py", "pkg/helpers.py"), ("pkg/sub.py",), ("pkg/cleanup.py",)],
    ids=["helper", "plain-and-helper", "subclass", "step-guard-helper"],
)
def test_files_the_scope_reaches_are_linted(tmp_path: Path, files: tuple[str, ...]) -> None:
    """A helper a handler or a step guard elsewhere reaches, or a subclass of a handler's class: LibCST
    decides, and the findings are those of the whole project's run in these files."""
    root = _project(tmp_path)
    imported, _, found = _check(root, "--no-cache", *files)
    assert "libcst" in imported
    _, _, whole = _check(root, "--no-cache")
    assert found == [f for f in whole if f["path"] in files]
    if files[-1] in ("pkg/helpers.py", "pkg/cleanup.py"):
        assert [f["code"] for f in found] == ["FT005"]


DEEP_HANDLER = HANDLER + "\n\nFLAG = " + " and ".join(f"a{i}" for i in range(150)) + "\n"


@pytest.mark.parametrize("args", [("--no-cache",), ("--cache-dir", "cache")], ids=["no-cache", "cached"])
def test_a_handler_file_too_deep_for_libcst(tmp_path: Path, args: tuple[str, ...]) -> None:
    """The handler's module nests deeper than LibCST parses safely (a 150-operand `and`,
    source.nesting_failure) and Python's parser reads it: without a cache the walk
    outlines it with `ast` as any other file and answers for files it does not reach
    without LibCST (issue 24: the check was most of the walk's cost on vLLM's
    `v1/engine/core.py`; before, the walk gave up and LibCST decided). With or without a
    cache, the findings are those of the whole project's run in these files: none."""
    files = {**PLAIN, "pkg/handler.py": DEEP_HANDLER, "pkg/helpers.py": HELPERS}
    root = write_project(tmp_path / "proj", files)
    plain = ("pkg/a.py", "pkg/b.py", "pkg/c.py")
    imported, status, found = _check(root, *args, *plain)
    if args == ("--no-cache",):
        assert _libcst(imported) == []
    _, _, whole = _check(root, "--no-cache")
    assert whole and not [f for f in whole if f["path"] in plain]
    assert (status, found) == (0, [])


SERVING = """\
from pkg.replies import error_reply

async def stream(processor, chunks):
    for chunk in chunks:
        try:
            yield processor.step(chunk)
        except Exception as err:
            yield error_reply(str(err))
            return
"""
REPLIES = "def error_reply(message):\n    return {'message': message}\n"


def test_a_step_guard_reaching_no_request_state_needs_no_libcst(tmp_path: Path) -> None:
    """An `except` around a `step()` whose branch, with what it calls, reaches none of the
    state the analysis models (reach.StateScreen) is no fault path: the `ast` walk says
    so, for the project and for the helper the branch calls. (The guard's own file named
    alone still imports LibCST while the forked scan runs, as any file that may hold a
    handler does: see the module's doc.)"""
    root = write_project(tmp_path / "proj", {**PLAIN, "pkg/serving.py": SERVING, "pkg/replies.py": REPLIES})
    for files in (("pkg/replies.py",), ()):
        imported, status, found = _check(root, "--no-cache", *files)
        assert _libcst(imported) == [] and (status, found) == (0, []), files
