"""workspace.Workspace: linting unsaved texts with the project index kept warm gives
exactly what a fresh lint of the same text gives (positions, fixes, helpers), however
the edits moved the functions it carried over."""

from __future__ import annotations

from pathlib import Path

from ftlint.core.config import load_config, select_codes
from ftlint.lint.registry import known_codes
from ftlint.lint.workspace import Workspace
from tests.helpers import EVICT_TAILS
from tests.helpers import HELPER_FREES as HELPERS

#: The handler of tests.helpers with its resuming loop moved into a method, and the helper
#: module imported (FT001 at line 12).
SENTINEL = (
    """\
from pkg.helpers import abort_all


class EngineCoreSentinel:
    def on_fault(self, exc):
        running = list(self.engine.scheduler.running)
        self._evict_unconfirmed_tails(running)
        self._resume(running)

    def _resume(self, running):
        for request in running:
            self.engine.scheduler._preempt_request(request, 0.0, drop_stale_output=True)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0

"""
    + EVICT_TAILS
)


def _project(root: Path) -> Path:
    (root / ".git").mkdir()
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "helpers.py").write_text(HELPERS)
    (root / "pkg" / "sentinel.py").write_text(SENTINEL)
    return root / "pkg" / "sentinel.py"


def _workspace(root: Path) -> Workspace:
    config = load_config(root)
    return Workspace(config, select_codes(config, [], known_codes()), cwd=root)


def _fresh(root: Path, path: Path, text: str):
    workspace = _workspace(root)
    workspace.set_text(path, text)
    return workspace.lint(path).findings


def test_warm_lints_after_edits_equal_fresh_lints(tmp_path):
    path = _project(tmp_path)
    warm = _workspace(tmp_path)
    warm.set_text(path, SENTINEL)
    assert [(f.line, f.code) for f in warm.lint(path).findings] == [(12, "FT001")]
    edits = [
        "# a comment above everything\n\n" + SENTINEL,  # every function moves down two lines
        SENTINEL.replace("running = list(", "running = list(  # edited\n            "),  # the handler changes
        SENTINEL.replace("    def _resume", "    def _unused(self):\n        pass\n\n    def _resume"),
        SENTINEL.replace(
            "self._resume(running)", "self._resume(running)\n        abort_all(self.engine.scheduler, running)"
        ),
        SENTINEL,
        SENTINEL.replace(", drop_stale_output=True", ""),
    ]
    for text in edits:
        warm.set_text(path, text)
        assert warm.lint(path).findings == _fresh(tmp_path, path, text)
    # the carried-over method's finding moved with it, and its fix still applies where it is
    warm.set_text(path, edits[0])
    (finding,) = warm.lint(path).findings
    assert (finding.line, finding.code) == (14, "FT001")
    assert finding.fix and finding.fix[0].line == 14


def test_open_helper_buffer_is_read_instead_of_the_file(tmp_path):
    path = _project(tmp_path)
    workspace = _workspace(tmp_path)
    handler = SENTINEL.replace("self._resume(running)", "abort_all(self.engine.scheduler, running)")
    workspace.set_text(path, handler)
    assert [f.code for f in workspace.lint(path).findings] == []  # evicts first, then frees in the helper
    helpers = tmp_path / "pkg" / "helpers.py"
    assert str(helpers) in workspace.reached_files(path)
    # without its own eviction the handler frees through the helper: reported at the call
    unguarded = handler.replace("        self._evict_unconfirmed_tails(running)\n", "")
    workspace.set_text(path, unguarded)
    assert [(f.line, f.code) for f in workspace.lint(path).findings] == [(7, "FT007")]
    # the helper's unsaved buffer evicts before it frees: that is what counts, not the file
    evicting = HELPERS.replace(
        "    scheduler.finish_requests",
        "    scheduler.kv_cache_manager.evict_blocks(set())\n    scheduler.finish_requests",
    )
    workspace.set_text(helpers, evicting)
    assert workspace.lint(path).findings == []
    assert helpers.read_text() == HELPERS
    workspace.drop_text(helpers)  # closed unsaved: the file on disk counts again
    assert [f.code for f in workspace.lint(path).findings] == ["FT007"]


def test_a_helper_module_created_or_deleted_on_disk_resolves_anew(tmp_path):
    """Imports are resolved once while no file appears or goes (the server's workspace
    keeps them: Project.found_files); a module created or deleted, as the client's file
    watcher reports it, resolves anew."""
    path = _project(tmp_path)
    helpers = tmp_path / "pkg" / "helpers.py"
    helpers.unlink()
    workspace = _workspace(tmp_path)
    unguarded = SENTINEL.replace("self._resume(running)", "abort_all(self.engine.scheduler, running)").replace(
        "        self._evict_unconfirmed_tails(running)\n", ""
    )
    workspace.set_text(path, unguarded)
    assert workspace.lint(path).findings == []  # the helper is unknown: nothing to report
    helpers.write_text(HELPERS)
    workspace.file_changed(helpers)
    assert [(f.line, f.code) for f in workspace.lint(path).findings] == [(7, "FT007")]
    helpers.unlink()
    workspace.file_changed(helpers)
    assert workspace.lint(path).findings == []


def test_an_edit_reads_no_unchanged_functions_callees_again(tmp_path, monkeypatch):
    """The scope is built again after every edit; the callees a function names in lambdas
    and decorators are read once per tree (Function.tree_facts, carried over with it), so an
    edit outside the functions reads none again, and the findings are a fresh lint's."""
    from ftlint.analysis import faultpath

    visits: list[int] = []
    real_init = faultpath._ValueRefs.__init__

    def counting_init(self):
        visits.append(1)
        real_init(self)

    monkeypatch.setattr(faultpath._ValueRefs, "__init__", counting_init)
    path = _project(tmp_path)
    warm = _workspace(tmp_path)
    warm.set_text(path, SENTINEL)
    first = warm.lint(path).findings
    assert visits  # the scope's functions were read
    visits.clear()
    edited = SENTINEL + "\n# a comment after every function\n"
    warm.set_text(path, edited)
    assert warm.lint(path).findings == first
    assert visits == []  # every function's tree was carried over, with what was read of it
    assert first == _fresh(tmp_path, path, edited)
    assert visits  # a fresh workspace reads them
