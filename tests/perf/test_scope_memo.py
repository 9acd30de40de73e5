"""The scope's answers kept in the cache (lint/scope_memo.py): after an edit, a run rebuilds
the fault-path scope without reading the unchanged step-guard files with `ast` again, and an
answer is dropped when a file it read changed or a module appears where an import of it
resolves. Each run's findings equal a run without a cache."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from ftlint.analysis import reach
from ftlint.core.cache import Cache
from ftlint.core.config import load_config
from ftlint.index import step_scan
from ftlint.lint.engine import lint_paths
from ftlint.lint.registry import known_codes

HANDLER = """
class Sentinel:
    def on_fault(self, scheduler, exc):
        for req in list(scheduler.running):
            scheduler.finish_requests(req.request_id, "aborted")
"""

# vLLM's serving shape: a parser's step() in a try whose branch builds an error reply
SERVING = """
from replies import error_reply

class Serving:
    def stream(self, processor, chunks):
        for chunk in chunks:
            try:
                yield processor.step(chunk)
            except Exception as err:
                yield error_reply(self.sched, err)
"""

REPLIES = """
def error_reply(sched, err):
    return {"message": str(err)}
"""

REPLIES_FREEING = """
def error_reply(sched, err):
    for req in list(sched.running):
        sched.finish_requests(req.request_id, "aborted")
    return {"message": str(err)}
"""

# a busy loop whose branch reaches a free through a module that may not exist yet
LOOP = """
from cleanup import abort_all

class Loop:
    def run(self):
        try:
            self.step()
        except Exception:
            abort_all(self.sched)
"""

CLEANUP = """
def abort_all(sched):
    for req in list(sched.running):
        sched.finish_requests(req.request_id, "aborted")
"""


@pytest.fixture(autouse=True)
def cache_on(monkeypatch, tmp_path_factory):
    monkeypatch.delenv("FTLINT_NO_CACHE", raising=False)  # conftest disables the cache for other tests
    monkeypatch.setenv("XDG_CACHE_HOME", os.fspath(tmp_path_factory.getbasetemp() / "user-cache"))


@pytest.fixture
def reads(monkeypatch):
    """The guard answers made in this process: step_scan.guarded_functions' texts, and the
    guards StateScreen decided. Each run starts as a new process would: without the
    prefilter's in-process answers."""
    made: dict[str, list[str]] = {"guards": [], "reach": []}
    guarded, decide = step_scan.guarded_functions, reach.StateScreen._decide

    def guarded_functions(source, *args, **kwargs):
        made["guards"].append(source if isinstance(source, str) else source.decode())
        return guarded(source, *args, **kwargs)

    def _decide(self, fn):
        made["reach"].append(fn.qualname)
        return decide(self, fn)

    monkeypatch.setattr(step_scan, "guarded_functions", guarded_functions)
    monkeypatch.setattr("ftlint.index.prefilter.guarded_functions", guarded_functions)
    monkeypatch.setattr(reach.StateScreen, "_decide", _decide)
    return made


def _project(root: Path, files: dict[str, str]) -> Path:
    (root / ".git").mkdir(exist_ok=True)
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text))
    return root


def _lint(root: Path, paths: list[str], cache: bool = True):
    step_scan._FOUND.clear()  # a new process: nothing the prefilter read is known
    result = lint_paths(
        [Path(p) for p in paths],
        load_config(root),
        set(known_codes()),
        cwd=root,
        cache_dir=root / ".ftlint_cache" if cache else None,
    )
    return [(f.path, f.line, f.code) for f in result.findings], result


def _edit(root: Path, name: str, text: str) -> None:
    (root / name).write_text(textwrap.dedent(text))


def test_after_an_edit_the_unchanged_guards_are_not_read_again(tmp_path, reads):
    root = _project(tmp_path, {"sentinel.py": HANDLER, "serving.py": SERVING, "replies.py": REPLIES})
    first, _ = _lint(root, ["sentinel.py"])
    assert first == [("sentinel.py", 5, "FT007")]
    assert reads["reach"] == ["Serving.stream"]  # left out: its branch reaches no request state
    reads["guards"].clear()
    reads["reach"].clear()
    _edit(root, "sentinel.py", HANDLER + "# edited\n")
    second, result = _lint(root, ["sentinel.py"])
    assert not result.cache_hit  # the scope was built again ...
    assert reads["reach"] == []  # ... without deciding the guard again
    assert textwrap.dedent(SERVING) not in reads["guards"]  # or reading its module with `ast`
    assert second == _lint(root, ["sentinel.py"], cache=False)[0] == first


def test_a_guard_module_is_not_read_again_after_an_edit_not_even_its_try_statements(tmp_path, monkeypatch):
    """StepGuards asks the memo before reading a module's `try` statements alone (they
    cannot clear a module that holds a guard: that read was wasted on every run)."""
    root = _project(tmp_path, {"sentinel.py": HANDLER, "serving.py": SERVING, "replies.py": REPLIES})
    for name in ("serving.py", "replies.py"):  # written long ago: their stat vouches for them
        old = os.stat(root / name).st_mtime - 60
        os.utime(root / name, (old, old))
    windows: list[bytes] = []
    outside_guards = step_scan.outside_guards

    def counted(data, *args):
        windows.append(data)
        return outside_guards(data, *args)

    monkeypatch.setattr("ftlint.index.prefilter.outside_guards", counted)
    first, _ = _lint(root, ["sentinel.py"])
    assert first == [("sentinel.py", 5, "FT007")]
    assert textwrap.dedent(SERVING).encode() in windows  # the prefilter read them, then the whole file
    windows.clear()
    _edit(root, "sentinel.py", HANDLER + "# edited\n")
    second, result = _lint(root, ["sentinel.py"])
    assert not result.cache_hit
    assert windows == []  # the memo answered for the guard's module
    assert second == _lint(root, ["sentinel.py"], cache=False)[0] == first


@pytest.mark.parametrize("helper_first", [True, False], ids=["edit-helper", "helper-then-handler"])
def test_a_helper_edited_to_free_brings_the_guard_back(tmp_path, reads, helper_first):
    root = _project(tmp_path, {"sentinel.py": HANDLER, "serving.py": SERVING, "replies.py": REPLIES})
    assert _lint(root, ["sentinel.py", "serving.py"])[0] == [("sentinel.py", 5, "FT007")]
    _edit(root, "replies.py", REPLIES_FREEING)
    if not helper_first:
        _edit(root, "sentinel.py", HANDLER + "# edited\n")
    reads["reach"].clear()
    after, _ = _lint(root, ["sentinel.py", "serving.py"])
    assert reads["reach"] == ["Serving.stream"]  # the answer read replies.py: decided again
    assert ("serving.py", 10, "FT007") in after
    assert after == _lint(root, ["sentinel.py", "serving.py"], cache=False)[0]


def test_a_module_created_where_an_import_resolves_brings_the_guard_back(tmp_path, reads):
    root = _project(tmp_path, {"sentinel.py": HANDLER, "loop.py": LOOP})
    assert _lint(root, ["sentinel.py", "loop.py"])[0] == [("sentinel.py", 5, "FT007")]
    assert reads["reach"] == ["Loop.run"]  # `cleanup` does not resolve: left out
    _edit(root, "cleanup.py", CLEANUP)
    reads["reach"].clear()
    after, _ = _lint(root, ["sentinel.py", "loop.py"])
    assert reads["reach"] == ["Loop.run"]  # the import's file test changed: decided again
    assert ("loop.py", 9, "FT007") in after
    assert after == _lint(root, ["sentinel.py", "loop.py"], cache=False)[0]


@pytest.mark.parametrize(
    "payload",
    [
        {"guards": {"Serving.stream": "everywhere"}},
        {"guards": {"Serving.stream": [[[0, ["x"]]]]}},
        {"guards": []},
        {"verdict": "no"},
        {"verdict": False, "deps": "none", "probes": []},
        {"verdict": False, "deps": [[1, 2]], "probes": []},
        {"verdict": False, "deps": [], "probes": [["/x", "z", True]]},
        [],
    ],
    ids=[
        "places-not-list",
        "index-not-int",
        "guards-not-dict",
        "verdict-not-bool",
        "deps-not-list",
        "dep-not-strings",
        "probe-kind",
        "not-a-dict",
    ],
)
def test_an_authenticated_entry_of_the_wrong_shape_is_a_miss(tmp_path, reads, payload):
    """Entries signed with this user's key but of another shape (an older ftlint, a bug):
    each is ignored and the answer is made again, with the same findings."""
    root = _project(tmp_path, {"sentinel.py": HANDLER, "serving.py": SERVING, "replies.py": REPLIES_FREEING})
    expected, _ = _lint(root, ["sentinel.py", "serving.py"], cache=False)
    assert ("serving.py", 10, "FT007") in expected
    assert _lint(root, ["sentinel.py", "serving.py"])[0] == expected
    cache = Cache(root / ".ftlint_cache")
    entries = sorted((root / ".ftlint_cache" / "scope").glob("*.json"))
    assert entries
    for entry in entries:
        cache.save_scope(entry.stem, payload)  # type: ignore[arg-type]
    _edit(root, "sentinel.py", HANDLER + "# edited\n")
    reads["reach"].clear()
    assert _lint(root, ["sentinel.py", "serving.py"])[0] == expected
    assert reads["reach"] == ["Serving.stream"]


def _workspace(root: Path):
    from ftlint.core.config import select_codes
    from ftlint.lint.workspace import Workspace

    config = load_config(root)
    return Workspace(config, select_codes(config, [], known_codes()), cwd=root)


def _buffer_lint(workspace, root: Path, name: str, text: str | None = None):
    if text is not None:
        workspace.set_text(root / name, textwrap.dedent(text))
    return [(f.line, f.code) for f in workspace.lint(root / name).findings]


def _fresh_lint(root: Path, name: str, texts: dict[str, str]):
    fresh = _workspace(root)
    for other, text in texts.items():
        fresh.set_text(root / other, textwrap.dedent(text))
    return _buffer_lint(fresh, root, name)


def test_the_language_servers_workspace_screens_a_guard_once_across_edits(tmp_path, reads):
    """The server rebuilds the scope after every edit; a guard's screen is kept in memory
    (LiveScopeMemo) while no file it read changed: edits of the handler do not ask it again."""
    root = _project(tmp_path, {"sentinel.py": HANDLER, "serving.py": SERVING, "replies.py": REPLIES})
    workspace = _workspace(root)
    assert _buffer_lint(workspace, root, "sentinel.py", HANDLER) == [(5, "FT007")]
    assert reads["reach"] == ["Serving.stream"]
    for n in range(3):
        edited = HANDLER + f"# edit {n}\n"
        assert _buffer_lint(workspace, root, "sentinel.py", edited) == [(5, "FT007")]
    assert reads["reach"] == ["Serving.stream"]


def test_the_workspace_screens_again_when_a_file_the_answer_read_changes(tmp_path, reads):
    """A buffer of the helper the guard's branch calls, edited to free every request: the
    guard is screened again, stays in the scope and is reported, as a fresh workspace
    reports it; a module created on disk where the guard's import resolves does the same."""
    root = _project(tmp_path, {"sentinel.py": HANDLER, "serving.py": SERVING, "replies.py": REPLIES})
    workspace = _workspace(root)
    workspace.set_text(root / "replies.py", textwrap.dedent(REPLIES))  # opened as on disk
    assert _buffer_lint(workspace, root, "serving.py", SERVING) == []
    reads["reach"].clear()
    workspace.set_text(root / "replies.py", textwrap.dedent(REPLIES_FREEING))  # then edited
    after = _buffer_lint(workspace, root, "serving.py")
    assert reads["reach"] == ["Serving.stream"]
    assert (10, "FT007") in after
    assert after == _fresh_lint(root, "serving.py", {"replies.py": REPLIES_FREEING})

    (tmp_path / "created").mkdir()
    root = _project(tmp_path / "created", {"sentinel.py": HANDLER, "loop.py": LOOP})
    workspace = _workspace(root)
    assert _buffer_lint(workspace, root, "loop.py", LOOP) == []  # `cleanup` does not resolve
    reads["reach"].clear()
    _edit(root, "cleanup.py", CLEANUP)
    workspace.file_changed(root / "cleanup.py")
    after = _buffer_lint(workspace, root, "loop.py")
    assert reads["reach"] == ["Loop.run"]
    assert after == [(9, "FT007")] == _fresh_lint(root, "loop.py", {})
