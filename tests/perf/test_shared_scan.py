"""The scan shared with a forked child (parallel_scan.share, scan._shared) finds what the
in-process scan finds, whichever side judges which file, and imports LibCST only in a run
that would have imported it anyway."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ftlint.core.config import load_config
from ftlint.index import outline, step_scan
from ftlint.lint import parallel_scan, scan
from ftlint.lint.engine import lint_paths
from ftlint.lint.registry import known_codes

needs_fork = pytest.mark.skipif(not parallel_scan.available(), reason="needs Linux and two CPUs (CI has both)")


def _expected(count: int) -> list[int]:
    return [parallel_scan.WANTS_FIRST if i % 97 == 5 else int(i % 7 == 0) for i in range(count)]


@needs_fork
@pytest.mark.parametrize("count", [1, 31, 32, 33, 1000])
def test_every_item_is_judged_and_merged_in_order(count):
    expected = _expected(count)
    shared = parallel_scan.share(count, expected.__getitem__, first=lambda: "made", extra=lambda: "sent")
    assert shared is not None
    assert shared.verdicts == expected
    assert shared.extra == "sent"
    assert shared.first == ("made" if parallel_scan.WANTS_FIRST in expected else None)


@needs_fork
@pytest.mark.parametrize("slow_side", ["parent", "child"])
def test_a_slow_side_leaves_the_rest_to_the_other(slow_side):
    """Whichever side is slow, the two meet without a gap (each verdict right)."""
    parent = os.getpid()
    expected = _expected(600)

    def verdict(i: int) -> int:
        if (os.getpid() == parent) == (slow_side == "parent"):
            time.sleep(0.002)
        return expected[i]

    shared = parallel_scan.share(600, verdict)
    assert shared is not None and shared.verdicts == expected
    if slow_side == "parent":  # 1.2 s for this process alone: the child took most of them
        judged_here = []
        parallel_scan.share(600, lambda i: judged_here.append(i) or verdict(i))
        assert len(judged_here) <= 300  # none at all when the child was done before this process looked


@needs_fork
def test_first_runs_while_the_child_reads_once_asked():
    parent = os.getpid()
    calls: list[int] = []

    def verdict(i: int) -> int:
        if os.getpid() != parent:
            time.sleep(0.001)  # the child is still reading when the parent is asked
        return parallel_scan.WANTS_FIRST if i == 990 else 0

    shared = parallel_scan.share(1000, verdict, first=lambda: calls.append(1) or "linter")
    assert shared is not None and shared.first == "linter" and calls == [1]
    never = parallel_scan.share(1000, lambda i: 1, first=lambda: calls.append(2) or "linter")
    assert never is not None and never.first is None and calls == [1]  # nothing asked for it
    now = parallel_scan.share(1000, lambda i: 0, first=lambda: "linter", first_now=True)
    assert now is not None and now.first == "linter"


@needs_fork
def test_a_failing_child_leaves_its_part_to_this_process():
    expected = _expected(500)
    shared = parallel_scan.share(500, expected.__getitem__, extra=lambda: 1 / 0)
    assert shared is not None and shared.verdicts == expected and shared.extra is None


@needs_fork
def test_an_error_here_leaves_no_child_behind(monkeypatch):
    """`first` (making the linter) raising: the error is the caller's, as without a
    child, and the child is stopped and reaped."""
    started: list[parallel_scan.Forked] = []
    real_start = parallel_scan.start
    monkeypatch.setattr(parallel_scan, "start", lambda compute: started.append(real_start(compute)) or started[-1])

    def slow(i: int) -> int:
        time.sleep(0.01)
        return 0

    def first() -> None:
        raise RuntimeError("the linter cannot be made")

    with pytest.raises(RuntimeError, match="cannot be made"):
        parallel_scan.share(1000, slow, first=first, first_now=True)
    with pytest.raises(ChildProcessError):  # reaped: no such child any more
        os.waitpid(started[0].pid, os.WNOHANG)


@needs_fork
def test_the_sides_claim_less_as_they_meet_and_judge_an_item_once(tmp_path):
    """The child claims a chunk, then less as it nears this process's claim, this process one
    item at a time, neither past the other's claim: with verdicts of very different costs (a
    guarded file's screen takes a thousand times a plain file's), neither is left judging a
    long chunk alone, and an item is judged twice only when both read the other's claim at
    the same moment (here: none or a few)."""
    assert [parallel_scan._claim(n) for n in (1, 3, 4, 8, 100, 128, 10_000)] == [1, 1, 1, 2, 25, 32, 32]
    log = tmp_path / "judged"

    def verdict(i: int) -> int:
        time.sleep(0.02 if i % 50 == 0 else 0.0005)
        with open(log, "a") as fh:  # O_APPEND: both processes' lines, whole
            fh.write(f"{i}\n")
        return 1

    shared = parallel_scan.share(600, verdict)
    assert shared is not None and shared.verdicts == [1] * 600
    judged = [int(line) for line in log.read_text().split()]
    assert sorted(set(judged)) == list(range(600))
    assert len(judged) - 600 <= 4, len(judged) - 600


@needs_fork
@pytest.mark.parametrize("reaches_state", [True, False])
def test_the_scan_screens_the_guards_it_confirms_and_the_linter_asks_it(tmp_path, monkeypatch, reaches_state):
    """The side that confirms a step guard's file screens the guard (does its `except` reach
    request state: analysis/reach.py) while the other reads on; the linter then takes that
    answer instead of making it after the scan. Same findings as a run that screens after."""
    from ftlint.analysis import reach

    root = _big_project(tmp_path, handler=True, guard_reaches_state=reaches_state)
    parent = os.getpid()
    scanning: list[bool] = [False]
    decided_after_scan: list[str] = []  # in this process, once the scan is done
    real_decide, real_share = reach.StateScreen._decide, parallel_scan.share

    def decide(screen, fn):
        if os.getpid() == parent and not scanning[0]:
            decided_after_scan.append(fn.qualname)
        return real_decide(screen, fn)

    def share(*args, **kwargs):
        scanning[0] = True
        try:
            return real_share(*args, **kwargs)
        finally:
            scanning[0] = False

    monkeypatch.setattr(reach.StateScreen, "_decide", decide)
    monkeypatch.setattr(parallel_scan, "share", share)
    shared = _findings(root)
    assert "run" not in decided_after_scan
    monkeypatch.setattr(parallel_scan, "ENABLED", False)  # in-process: the linter screens it
    alone = _findings(root)
    assert "run" in decided_after_scan
    assert shared == alone
    assert sum(f["path"].endswith("mm_loop.py") for f in shared[0]) == int(reaches_state)


@needs_fork
def test_a_failing_screen_leaves_the_guards_to_the_linter(tmp_path, monkeypatch):
    """The scan's screen is an answer made early, never the scan's failure: when it raises,
    the run goes on with the same findings (the linter screens the guards itself)."""
    from ftlint.analysis import reach

    root = _big_project(tmp_path, handler=True)
    expected = _findings(root)

    def broken(*args, **kwargs):
        raise RuntimeError("a bug in the screen")

    monkeypatch.setattr(reach, "screened_guards", broken)
    assert _findings(root) == expected


def test_a_scanned_answer_holds_for_its_text_only(tmp_path):
    from ftlint.lint.scope_memo import ScannedScopeMemo

    path = tmp_path / "loop.py"
    memo = ScannedScopeMemo({(os.fspath(path), "run"): ("text", False)})
    assert memo.reaches_state(path, "text", "run") is False
    assert memo.reaches_state(path, "edited text", "run") is None
    assert memo.reaches_state(path, "text", "other") is None
    assert memo.guards("text", ("step",)) == (False, None)


def test_a_guard_reaching_a_file_ast_cannot_outline_is_left_to_the_linter(tmp_path):
    """The scan's screen reads outlines only: a guard whose branch reaches a module Python's
    parser rejects (LibCST may read it) gets no answer from it; the linter decides."""
    from ftlint.analysis.reach import screened_guards
    from ftlint.index.outline import OutlineStore
    from ftlint.index.project import Project
    from ftlint.index.step_scan import guarded_functions

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    loop = tmp_path / "pkg" / "loop.py"
    loop.write_text(
        "from pkg.broken import recover\n\ndef run(engine):\n    try:\n        engine.step()\n"
        "    except Exception:\n        recover(engine)\n"
    )
    (tmp_path / "pkg" / "broken.py").write_text("def recover(engine):\n    print(f'{engine!r:>{1}}' ; )\n")
    (tmp_path / "pkg" / "fine.py").write_text("def recover(engine):\n    print(engine)\n")
    guards = guarded_functions(loop.read_text(), lambda name: name == "step")
    assert guards

    def project() -> Project:
        made = Project(tmp_path, tmp_path, outline_only=lambda path: True, outline_store=OutlineStore(None))
        made.ast_only = True
        return made

    assert screened_guards(project(), loop, guards) is None
    loop.write_text(loop.read_text().replace("pkg.broken", "pkg.fine"))
    assert screened_guards(project(), loop, guards) == {"run": False}


def test_no_child_no_share(monkeypatch):
    monkeypatch.setattr(parallel_scan, "ENABLED", False)
    assert parallel_scan.share(10, lambda i: 1) is None


def _big_project(tmp_path: Path, handler: bool, guard_reaches_state: bool = True) -> Path:
    """More files than SHARE_MIN_FILES: a handler (or none), its helper, a step guard
    whose branch reaches request state (or only logs), at both ends of the walk and in
    the middle."""
    root = tmp_path / "proj"
    pkg = root / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "aa_helpers.py").write_text(
        "def abort_all(engine):\n    engine.scheduler.finish_requests(engine.running, 'abort')\n"
    )
    if handler:
        (pkg / "zz_sentinel.py").write_text(
            "from pkg.aa_helpers import abort_all\n\nclass S:\n    def on_fault(self, exc):\n        abort_all(self)\n"
        )
    branch = (
        "        for r in engine.scheduler.running:\n            engine.scheduler.finish_requests([r.request_id], 1)\n"
        if guard_reaches_state
        else "        print('step failed')\n"
    )
    (pkg / "mm_loop.py").write_text(
        "def run(engine):\n    try:\n        engine.step()\n    except Exception:\n" + branch
    )
    # a step called between a `try` and an `except` that guard nothing: cleared by its windows
    (pkg / "mm_unguarded.py").write_text(
        "def g(engine):\n    try:\n        x = 1\n    finally:\n        pass\n    engine.step()\n"
        "    try:\n        y = 2\n    except Exception:\n        pass\n"
    )
    for i in range(scan.SHARE_MIN_FILES + 40):
        (pkg / f"f{i:04d}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
    return root


def _findings(root: Path) -> tuple[list[dict], int, int]:
    result = lint_paths([], load_config(root), known_codes(), cwd=root)
    return [f.to_dict() for f in result.findings], result.files_scanned, result.files_parsed


@needs_fork
@pytest.mark.parametrize("handler", [True, False])
def test_the_shared_scan_gives_the_in_process_findings(tmp_path, monkeypatch, handler):
    root = _big_project(tmp_path, handler)
    used: list[int] = []
    real_share = parallel_scan.share
    monkeypatch.setattr(parallel_scan, "share", lambda *a, **k: used.append(1) or real_share(*a, **k))
    shared = _findings(root)
    monkeypatch.setattr(parallel_scan, "ENABLED", False)
    alone = _findings(root)
    assert used == [1, 1]  # asked both times; refused when turned off
    assert shared == alone
    codes = sorted(f["code"] for f in shared[0])
    assert codes == (["FT007", "FT007"] if handler else ["FT007"]), codes  # the step guard's, the handler's


@needs_fork
@pytest.mark.parametrize(
    "lint", [["pkg/zz_sentinel.py"], ["pkg/aa_helpers.py"], ["pkg/zz_sentinel.py", "pkg/mm_loop.py"], ["pkg"]]
)
def test_files_named_get_the_in_process_findings(tmp_path, monkeypatch, lint):
    """pre-commit's call without a cache: the files named that may define a handler are
    loaded while the child reads (scan._shared's `first`), with the same findings."""
    root = _big_project(tmp_path, handler=True)
    (root / "pkg" / "zz_sentinel.py").write_text(
        (root / "pkg" / "zz_sentinel.py").read_text() + "\n\nclass T:\n    def on_fault(self, exc):\n"
        "        self.scheduler.finish_requests(self.scheduler.running, 1)\n"
    )
    config = load_config(root)
    runs = {}
    for enabled in (True, False):
        monkeypatch.setattr(parallel_scan, "ENABLED", enabled)
        result = lint_paths([Path(p) for p in lint], config, known_codes(), cwd=root)
        runs[enabled] = ([f.to_dict() for f in result.findings], result.files_scanned, result.files_parsed)
    assert runs[True] == runs[False]
    reported = {  # the two handlers' frees, and the step guard's
        "pkg/zz_sentinel.py": ["pkg/zz_sentinel.py", "pkg/zz_sentinel.py"],
        "pkg/aa_helpers.py": [],
        "pkg/mm_loop.py": ["pkg/mm_loop.py"],
        "pkg": ["pkg/mm_loop.py", "pkg/zz_sentinel.py", "pkg/zz_sentinel.py"],
    }
    assert sorted(f["path"] for f in runs[True][0]) == sorted(path for p in lint for path in reported[p])


@needs_fork
def test_the_childs_step_scan_outlines_come_back(tmp_path, monkeypatch):
    """The child parsed the step guard's module to confirm its guard: its outline and its
    guards come back, and this process outlines the module from them instead of parsing it
    again; so does what the windows showed of a file they cleared."""
    root = _big_project(tmp_path, handler=True)
    monkeypatch.setattr(parallel_scan, "_claim", lambda left: left)  # the child takes every file
    monkeypatch.setattr(outline, "_SCANNED", {})
    monkeypatch.setattr(step_scan, "_FOUND", {})
    config = load_config(root)
    files = sorted(str(p) for p in root.rglob("*.py"))
    scan_files = scan.ScanFiles(config, files, {str(root)}, None)
    from ftlint.lint.result_store import ResultStore

    store = ResultStore(None, config.handler_patterns(), config.fault_steps)
    linters = scan.LinterSpec(config, set(known_codes()), root, scan_files.lint_set, None, False)
    found = scan.scan(scan_files, store.facts, None, exhaustive=False, linters=linters)
    assert str(root / "pkg" / "mm_loop.py") in found.candidates
    kept = dict(outline.scanned_outlines())
    guarded, unguarded = (root / "pkg" / "mm_loop.py").read_bytes(), (root / "pkg" / "mm_unguarded.py").read_bytes()
    assert guarded in kept
    # what the child's step scan learnt, StepGuards finds here without reading the files again
    assert step_scan.known(guarded, config.fault_steps) == (True, {"run": [((0, (0,)),)]})
    assert step_scan.known(unguarded, config.fault_steps) == (True, {})


@needs_fork
@pytest.mark.parametrize("handler", [True, False])
def test_the_linter_is_made_during_the_scan_once_a_linted_file_may_define_a_handler(tmp_path, handler):
    root = _big_project(tmp_path, handler=handler)
    config = load_config(root)
    files = sorted(str(p) for p in root.rglob("*.py"))  # the handler's file last: judged here first
    scan_files = scan.ScanFiles(config, files, {str(root)}, None)
    from ftlint.lint.result_store import ResultStore

    store = ResultStore(None, config.handler_patterns(), config.fault_steps)
    linters = scan.LinterSpec(config, set(known_codes()), root, scan_files.lint_set, None, False)
    found = scan.scan(scan_files, store.facts, None, exhaustive=False, linters=linters)
    assert (found.linter is not None) == handler


NO_LIBCST = """
import sys
from pathlib import Path
from ftlint.core.config import load_config
from ftlint.lint.engine import lint_paths
from ftlint.lint.registry import known_codes
root = Path(sys.argv[1])
result = lint_paths([], load_config(root), known_codes(), cwd=root)
print(len(result.findings), "libcst" in sys.modules)
"""


@needs_fork
def test_no_handler_in_the_lint_set_no_libcst(tmp_path):
    """A walk whose files define no handler never imports LibCST, shared scan or not
    (its step guard is decided with `ast`)."""
    root = _big_project(tmp_path, handler=False, guard_reaches_state=False)
    out = subprocess.run([sys.executable, "-c", NO_LIBCST, str(root)], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "False"]
    (root / "pkg" / "zz_sentinel.py").write_text("class S:\n    def on_fault(self, exc):\n        pass\n")
    out = subprocess.run([sys.executable, "-c", NO_LIBCST, str(root)], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "True"]
