"""The result cache: warm runs give the cold run's findings without parsing (or importing
LibCST), and anything a result depended on invalidates it: the file itself, a helper in
another file, a file that appears where an import now resolves, the configuration, the
selected codes. Broken cache entries are ignored; concurrent runs are safe. After an
edit, only the edited file's stat-table shard is rewritten and only the edited file is
outlined again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ftlint.core.config import load_config
from ftlint.lint.engine import lint_paths
from ftlint.lint.registry import known_codes
from ftlint.lint.result_store import PROJECT_RUN_MIN_FILES
from tests.helpers import outlines_made_here

HANDLER = """\
from ft_helpers import evict_dirty_tails

class Sentinel:
    def on_fault(self, exc):
        evict_dirty_tails(self.scheduler)
        self.scheduler.finish_requests(None, "aborted")
"""
EVICTING = (  # the unconfirmed tail of every running request, in every KV-cache group
    "def evict_dirty_tails(s):\n"
    "    for r in s.running:\n"
    "        for m in s.kv_cache_manager.coordinator.single_type_managers:\n"
    "            first = (r.num_computed_tokens - r.num_in_flight_tokens) // m.block_size\n"
    "            s.kv_cache_manager.evict_blocks({b.block_id for b in m.req_to_blocks[r.request_id][first:]})\n"
)
NOT_EVICTING = "def evict_dirty_tails(s):\n    return None\n"
OTHER = "def unrelated():\n    return 1\n"


@pytest.fixture(autouse=True)
def cache_on(monkeypatch, tmp_path_factory):
    monkeypatch.delenv("FTLINT_NO_CACHE", raising=False)  # conftest disables the cache for other tests
    # the per-user secret that authenticates entries: this session's, not the real user's
    monkeypatch.setenv("XDG_CACHE_HOME", os.fspath(tmp_path_factory.getbasetemp() / "user-cache"))


def _project(root: Path, helper: str = EVICTING, config: str = "", git: bool = True) -> Path:
    if config is not None:
        (root / "pyproject.toml").write_text("[tool.ftlint]\n" + textwrap.dedent(config))
    if git:
        (root / ".git").mkdir(exist_ok=True)
    (root / "sentinel.py").write_text(HANDLER)
    (root / "ft_helpers.py").write_text(helper)
    (root / "other.py").write_text(OTHER)
    return root


def _lint(root: Path, paths=(), cache_dir: Path | None = None, selected=None):
    config = load_config(root)
    return lint_paths(
        [Path(p) for p in paths],
        config,
        set(selected or known_codes()),
        cwd=root,
        cache_dir=cache_dir or root / ".ftlint_cache",
    )


def _codes(result) -> list[tuple[str, int, str]]:
    return [(f.path, f.line, f.code) for f in result.findings]


def test_warm_run_hits_and_matches_cold(tmp_path):
    _project(tmp_path, helper=NOT_EVICTING)
    cold = _lint(tmp_path)
    assert not cold.cache_hit and cold.files_parsed >= 2
    assert _codes(cold) == [("sentinel.py", 6, "FT007")]
    warm = _lint(tmp_path)
    assert warm.cache_hit and warm.files_parsed == 0
    assert warm.findings == cold.findings
    cache = tmp_path / ".ftlint_cache"
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"


def test_editing_a_helper_in_another_file_invalidates_the_handler(tmp_path):
    _project(tmp_path, helper=EVICTING)
    assert _codes(_lint(tmp_path)) == []
    assert _lint(tmp_path).cache_hit
    (tmp_path / "ft_helpers.py").write_text(NOT_EVICTING)
    after = _lint(tmp_path)
    assert not after.cache_hit
    assert _codes(after) == [("sentinel.py", 6, "FT007")]
    again = _lint(tmp_path)
    assert again.cache_hit and _codes(again) == [("sentinel.py", 6, "FT007")]
    (tmp_path / "ft_helpers.py").write_text(EVICTING)  # and back
    assert _codes(_lint(tmp_path)) == []


def test_helper_edit_invalidates_a_single_file_run(tmp_path):
    """pre-commit's call: only the handler file is passed; the helper is read lazily."""
    _project(tmp_path, helper=EVICTING)
    assert _codes(_lint(tmp_path, ["sentinel.py"])) == []
    assert _lint(tmp_path, ["sentinel.py"]).cache_hit
    (tmp_path / "ft_helpers.py").write_text(NOT_EVICTING)
    assert _codes(_lint(tmp_path, ["sentinel.py"])) == [("sentinel.py", 6, "FT007")]


def test_same_size_edit_is_seen(tmp_path):
    _project(tmp_path, helper=EVICTING)
    assert _codes(_lint(tmp_path)) == []
    text = (tmp_path / "sentinel.py").read_text()
    swapped = text.replace(
        '        evict_dirty_tails(self.scheduler)\n        self.scheduler.finish_requests(None, "aborted")\n',
        '        self.scheduler.finish_requests(None, "aborted")\n        evict_dirty_tails(self.scheduler)\n',
    )
    assert len(swapped) == len(text) and swapped != text
    st = (tmp_path / "sentinel.py").stat()
    (tmp_path / "sentinel.py").write_text(swapped)
    os.utime(tmp_path / "sentinel.py", ns=(st.st_atime_ns, st.st_mtime_ns))  # same mtime and size
    assert ("sentinel.py", 5, "FT007") in _codes(_lint(tmp_path))


def test_a_new_file_where_an_import_resolves_invalidates(tmp_path):
    """No project scan (no .git, no config): the helper module appears between two runs."""
    (tmp_path / "sentinel.py").write_text(HANDLER)
    cache_dir = tmp_path.parent / f"{tmp_path.name}-cache"
    before = _lint(tmp_path, ["sentinel.py"], cache_dir=cache_dir)
    assert _codes(before) == [("sentinel.py", 6, "FT007")]  # unresolved helper: no eviction known
    assert _lint(tmp_path, ["sentinel.py"], cache_dir=cache_dir).cache_hit
    (tmp_path / "ft_helpers.py").write_text(EVICTING)
    after = _lint(tmp_path, ["sentinel.py"], cache_dir=cache_dir)
    assert not after.cache_hit and _codes(after) == []


def test_file_existence_tests_are_recorded_by_the_project_probe_not_pathlib(tmp_path, monkeypatch):
    """Import resolution (and the API-generation lookup) test files through the project's
    FileProbe, which records them for the run entry; pathlib is never patched meanwhile."""
    import pathlib

    from ftlint.lint import lint_runner

    originals = (pathlib.Path.is_file, pathlib.Path.exists)
    seen = []
    real = lint_runner.FileLinter.lint_file

    def checking(self, *args, **kwargs):
        seen.append(((pathlib.Path.is_file, pathlib.Path.exists) == originals, self.project.probe.probes is not None))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(lint_runner.FileLinter, "lint_file", checking)
    (tmp_path / "sentinel.py").write_text(HANDLER)
    cache_dir = tmp_path.parent / f"{tmp_path.name}-cache"
    assert _codes(_lint(tmp_path, ["sentinel.py"], cache_dir=cache_dir)) == [("sentinel.py", 6, "FT007")]
    assert seen and all(unpatched and recording for unpatched, recording in seen)
    (entry,) = (cache_dir / "runs").glob("*.json")
    probes = json.loads(entry.read_bytes().partition(b"\n")[2])["probes"]
    assert [os.fspath(tmp_path / "ft_helpers.py"), "f", False] in probes  # where the import would resolve
    assert [os.fspath(tmp_path / "vllm" / "v1" / "request.py"), "f", False] in probes  # generation.detect


def test_one_cache_object_per_run(tmp_path, monkeypatch):
    """The walk's listings, the stat table, the run entries and the outlines of one run
    share one Cache object (one check of the directory, one clock for racy entries)."""
    from ftlint.core import cache

    made = []
    real_init = cache.Cache.__init__

    def counting(self, directory):
        made.append(directory)
        real_init(self, directory)

    monkeypatch.setattr(cache.Cache, "__init__", counting)
    _project(tmp_path, helper=NOT_EVICTING)
    assert _codes(_lint(tmp_path, ["sentinel.py"])) == [("sentinel.py", 6, "FT007")]
    assert len(made) == 1
    assert _lint(tmp_path, ["sentinel.py"]).cache_hit and len(made) == 2


def test_changing_config_or_selection_changes_results(tmp_path):
    _project(tmp_path, helper=NOT_EVICTING)
    assert _codes(_lint(tmp_path)) == [("sentinel.py", 6, "FT007")]
    (tmp_path / "pyproject.toml").write_text('[tool.ftlint]\nper-file-ignores = {"sentinel.py" = ["FT007"]}\n')
    assert _codes(_lint(tmp_path)) == []
    (tmp_path / "pyproject.toml").write_text('[tool.ftlint]\nfault-handlers = ["on_other"]\n')
    assert _codes(_lint(tmp_path)) == []
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    assert _codes(_lint(tmp_path)) == [("sentinel.py", 6, "FT007")]
    selected = [c for c in known_codes() if c != "FT007"]
    assert _codes(_lint(tmp_path, selected=selected)) == []


def test_corrupt_and_partial_entries_are_ignored(tmp_path):
    _project(tmp_path, helper=NOT_EVICTING)
    expected = _codes(_lint(tmp_path))
    cache = tmp_path / ".ftlint_cache"
    entries = list((cache / "runs").glob("*.json")) + list((cache / "stat").glob("*.json"))
    assert len(entries) == 2
    originals = {p: p.read_bytes() for p in entries}
    damages = [
        lambda b: b[: len(b) // 2],  # truncated
        lambda b: b"",  # empty
        lambda b: b"\x00\xff garbage",  # not text
        lambda b: b.replace(b"FT007", b"FT001"),  # MAC no longer matches
        lambda b: b.split(b"\n", 1)[1],  # no header
        lambda b: b"ftlint-cache 1 0\n[]",  # an older format
    ]
    for damage in damages:
        for path, data in originals.items():
            path.write_bytes(damage(data))
        result = _lint(tmp_path)
        assert not result.cache_hit
        assert _codes(result) == expected and result.internal_errors == []
    assert _lint(tmp_path).cache_hit  # the last run rewrote good entries


def test_unwritable_cache_dir_is_not_an_error(tmp_path):
    _project(tmp_path, helper=NOT_EVICTING)
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a directory")
    result = _lint(tmp_path, cache_dir=blocker / "cache")
    assert _codes(result) == [("sentinel.py", 6, "FT007")] and result.internal_errors == []


def test_no_cache_env_disables(tmp_path, monkeypatch):
    _project(tmp_path, helper=NOT_EVICTING)
    monkeypatch.setenv("FTLINT_NO_CACHE", "1")
    _lint(tmp_path)
    assert not (tmp_path / ".ftlint_cache").exists()


def _cli(cwd: Path, *args: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "FTLINT_NO_CACHE"}
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "ftlint", "check", "--format", "json", "--scan-stats", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_cli_flags(tmp_path):
    _project(tmp_path, helper=NOT_EVICTING)
    proc = _cli(tmp_path, "--no-cache")
    assert proc.returncode == 1 and not (tmp_path / ".ftlint_cache").exists(), proc.stderr
    custom = tmp_path.parent / f"{tmp_path.name}-custom"
    first = _cli(tmp_path, "--cache-dir", str(custom))
    second = _cli(tmp_path, "--cache-dir", str(custom))
    assert (custom / "CACHEDIR.TAG").is_file() and not (tmp_path / ".ftlint_cache").exists()
    assert json.loads(first.stdout) == json.loads(second.stdout) == json.loads(proc.stdout)
    assert ", 0 parsed" in second.stderr and ", 0 parsed" not in first.stderr
    default = _cli(tmp_path)
    assert default.returncode == 1 and (tmp_path / ".ftlint_cache" / "CACHEDIR.TAG").is_file()


def test_warm_cli_run_does_not_parse_or_import_the_linter(tmp_path):
    """The warm path stays in the standard library: no LibCST, no analysis, no vLLM, and not
    hashlib's OpenSSL (3.6 MB of RSS and ~4 ms a run: digests.py hashes with _blake2)."""
    _project(tmp_path, helper=NOT_EVICTING)
    driver = textwrap.dedent(
        """
        import sys
        from pathlib import Path
        from ftlint.core.config import load_config
        from ftlint.lint.engine import lint_paths
        root = Path(sys.argv[1])
        result = lint_paths([], load_config(root), {"FT007"}, cwd=root, cache_dir=root / ".ftlint_cache")
        heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("libcst", "vllm", "torch")
                       or m in ("ftlint.lint.lint_runner", "ftlint.index.project", "ftlint.runtime", "_hashlib"))
        print(result.cache_hit, len(result.findings), heavy)
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "FTLINT_NO_CACHE"}

    def run():
        return subprocess.run(
            [sys.executable, "-c", driver, str(tmp_path)],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    cold = run()
    assert cold.stdout.startswith("False 1 "), cold.stderr
    warm = run()
    assert warm.stdout.strip() == "True 1 []", warm.stdout + warm.stderr


def test_concurrent_runs_share_a_cache(tmp_path):
    _project(tmp_path, helper=NOT_EVICTING)
    expected = _codes(_lint(tmp_path, cache_dir=tmp_path / "scratch"))

    def one(i: int):
        if i % 3 == 0:  # some runs rewrite entries while others read them
            (tmp_path / "other.py").write_text(OTHER + f"# {i}\n")
        return _codes(_lint(tmp_path))

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(one, range(12)))
    assert all(r == expected for r in results)
    procs = [_cli(tmp_path) for _ in range(1)]
    parallel = [
        subprocess.Popen(
            [sys.executable, "-m", "ftlint", "check", "--format", "json"],
            cwd=tmp_path,
            env={k: v for k, v in os.environ.items() if k != "FTLINT_NO_CACHE"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    outs = [p.communicate(timeout=300) for p in parallel]
    assert all(json.loads(out) == json.loads(procs[0].stdout) for out, _ in outs), outs
    assert not list((tmp_path / ".ftlint_cache").rglob("*.tmp"))


def _age(root: Path, seconds: int = 60) -> None:
    """Move every mtime into the past: files modified just now keep only their hash
    in the stat table (racy), which would rewrite their shard on every run."""
    past = int(__import__("time").time()) - seconds
    for path in [root, *root.rglob("*")]:
        os.utime(path, (past, past))


def test_an_edit_rewrites_only_the_stat_shard_of_the_edited_file(tmp_path):
    from ftlint.core.cache import STAT_SHARDS, stat_shard

    project = tmp_path / "proj"
    project.mkdir()
    _project(project, helper=NOT_EVICTING)
    for i in range(24):  # directories spread over the shards
        (project / f"d{i}").mkdir()
        (project / f"d{i}" / "m.py").write_text(f"def f{i}():\n    return {i}\n")
    cache = tmp_path / "cache"
    _age(project)
    expected = _codes(_lint(project, cache_dir=cache))
    shards = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in (cache / "stat").glob("*.json")}
    assert 1 < len(shards) <= STAT_SHARDS
    edited = project / "d3" / "m.py"
    edited.write_text("def f3():\n    return -3\n")
    past = edited.stat().st_mtime - 30
    os.utime(edited, (past, past))
    assert _codes(_lint(project, cache_dir=cache)) == expected
    changed = {
        name
        for name, (data, mtime) in shards.items()
        if (cache / "stat" / name).read_bytes() != data or (cache / "stat" / name).stat().st_mtime_ns != mtime
    }
    assert changed == {next(n for n in shards if n.endswith(f"-{stat_shard(os.fspath(edited)):x}.json"))}
    assert _lint(project, cache_dir=cache).cache_hit


@pytest.mark.parametrize("forked", [False, True])
def test_after_an_edit_only_the_edited_file_is_outlined_again(tmp_path, monkeypatch, forked):
    """In-process, or with the project scan forked (which outlines the file given in the
    child: the parent then outlines nothing at all)."""
    from ftlint.lint import parallel_scan

    if forked and not parallel_scan.available():
        pytest.skip("needs fork and two CPUs")
    monkeypatch.setattr(parallel_scan, "ENABLED", forked)
    monkeypatch.setattr(parallel_scan.Forked, "ready", lambda self: True)  # take the child's outline
    _project(tmp_path, helper=NOT_EVICTING)
    outlined = outlines_made_here(monkeypatch)
    first = _codes(_lint(tmp_path, paths=["sentinel.py"]))
    assert set(outlined) == ({NOT_EVICTING} if forked else {HANDLER, NOT_EVICTING})
    outlined.clear()
    (tmp_path / "sentinel.py").write_text(HANDLER + "# edited\n")
    second = _lint(tmp_path, paths=["sentinel.py"])
    assert outlined == ([] if forked else [HANDLER + "# edited\n"])  # the helper's outline: from the cache
    assert not second.cache_hit and _codes(second) == first == [("sentinel.py", 6, "FT007")]


def test_broken_outline_entries_are_ignored(tmp_path):
    _project(tmp_path, helper=EVICTING)
    (tmp_path / "ft_helpers.py").write_text(EVICTING)
    expected = _codes(_lint(tmp_path, paths=["sentinel.py"], cache_dir=tmp_path / "fresh"))
    cache = tmp_path / ".ftlint_cache"
    _lint(tmp_path, paths=["sentinel.py"])
    entries = list((cache / "outlines").glob("*.json"))
    assert len(entries) == 2
    for damage in (b"", b"ftlint-cache 1 0\n{}", b"\xff garbage"):
        for path in entries:
            path.write_bytes(damage)
        (tmp_path / "sentinel.py").write_text(HANDLER + f"# {len(damage)}\n")  # a miss: the linter runs
        result = _lint(tmp_path, paths=["sentinel.py"])
        assert not result.cache_hit and _codes(result) == expected and result.internal_errors == []


@pytest.mark.parametrize("child_done_first", [True, False])
def test_a_new_helper_module_invalidates_a_forked_single_file_run(tmp_path, monkeypatch, child_done_first):
    """With the project scan forked, the parent loads the file given while the child still
    scans, or after it: the import probes it makes are dependencies of the result either way.
    (FT007 alone: it resolves calls only while the file is loaded, as the scope is built.)"""
    from ftlint.lint import parallel_scan

    monkeypatch.setattr(parallel_scan.Forked, "ready", lambda self: child_done_first)
    root = tmp_path / "proj"
    root.mkdir()
    (root / ".git").mkdir()
    (root / "sentinel.py").write_text(HANDLER)
    (root / "other.py").write_text(OTHER)
    before = _lint(root, ["sentinel.py"], selected=["FT007"])
    assert _codes(before) == [("sentinel.py", 6, "FT007")]  # unresolved helper: no eviction known
    assert _lint(root, ["sentinel.py"], selected=["FT007"]).cache_hit
    (root / "ft_helpers.py").write_text(EVICTING)
    after = _lint(root, ["sentinel.py"], selected=["FT007"])
    assert not after.cache_hit and _codes(after) == []


def test_stat_tables_of_old_scopes_are_removed(tmp_path):
    """A new ftlint (or an edited checkout) starts a new stat table; the tables of all but
    the last few scopes are removed, so upgrades do not pile up 16 files each."""
    from ftlint.core.cache import MAX_STAT_TABLES

    _project(tmp_path, helper=NOT_EVICTING)
    tables = tmp_path / ".ftlint_cache" / "stat"
    tables.mkdir(parents=True)
    old_scopes = [f"{i:040x}" for i in range(MAX_STAT_TABLES + 2)]
    for age, scope in enumerate(old_scopes):
        for shard in ("0", "a"):
            path = tables / f"{scope}-{shard}.json"
            path.write_text("ftlint-cache 2 0\n{}")
            os.utime(path, (1_000_000 + age, 1_000_000 + age))  # later scopes written later
    (tables / f"{'f' * 40}.json").write_text("ftlint-cache 1 0\n{}")  # an unsharded table of an older ftlint
    os.utime(tables / f"{'f' * 40}.json", (999, 999))
    expected = _codes(_lint(tmp_path))
    scopes = {p.name.split("-")[0].removesuffix(".json") for p in tables.glob("*.json")}
    assert len(scopes) == MAX_STAT_TABLES
    assert set(old_scopes[-(MAX_STAT_TABLES - 1) :]) < scopes  # the newest old ones, and this run's
    assert _lint(tmp_path).cache_hit and _codes(_lint(tmp_path)) == expected


def test_format_1_tables_at_the_top_are_removed_once_and_nothing_else(tmp_path):
    """Format 1 kept stat tables and listings at the top of the cache directory: a run that
    gives ftlint's own (tagged) directory the new subdirectories removes those that carry
    ftlint's header, and no other file."""
    from ftlint.core.cache import _TAG

    _project(tmp_path, helper=NOT_EVICTING)
    cache = tmp_path / ".ftlint_cache"
    cache.mkdir()
    (cache / "CACHEDIR.TAG").write_text(_TAG)
    old = [cache / f"stat-{'a' * 40}-3.json", cache / f"listing-{'b' * 40}.json"]
    for path in old:
        path.write_text("ftlint-cache 1 0\n{}")
    mine = cache / "stat-notes.json"
    mine.write_text('{"not": "ftlint"}')
    assert _codes(_lint(tmp_path)) == [("sentinel.py", 6, "FT007")]
    assert not any(p.exists() for p in old) and mine.read_text() == '{"not": "ftlint"}'


@pytest.mark.parametrize(
    "module",
    [
        "ftlint/analysis/interpreter.py",
        "ftlint/lint/engine.py",
        "rules/ft007_missing_dirty_eviction.py",
        "ftlint/analysis/vllm_data/0.34.0.json",  # the shipped summaries of vLLM's methods (issue 21)
    ],
)
def test_code_fingerprint_covers_subpackages(module: str, monkeypatch):
    """Editing any module that shapes a result (also in a subpackage such as the rules'
    interpreter) changes the code fingerprint that keys every cached result."""
    from ftlint.core import cache

    path = Path(__file__).resolve().parents[2] / module
    before = os.stat(path)
    monkeypatch.setattr(cache, "_fingerprint", None)
    old = cache.code_fingerprint()
    try:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
        monkeypatch.setattr(cache, "_fingerprint", None)
        assert cache.code_fingerprint() != old
    finally:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    monkeypatch.setattr(cache, "_fingerprint", None)
    assert cache.code_fingerprint() == old


DISPATCHING_HANDLER = """\
class Sentinel:
    def on_fault(self, exc):
        self._evict(self.scheduler)
        self._release(self.scheduler)

    def _evict(self, s):
        for r in s.running:
            for m in s.kv_cache_manager.coordinator.single_type_managers:
                first = (r.num_computed_tokens - r.num_in_flight_tokens) // m.block_size
                s.kv_cache_manager.evict_blocks({b.block_id for b in m.req_to_blocks[r.request_id][first:]})

    def _release(self, s):
        s.finish_requests(None, "aborted")
"""
# an override that frees before the base class's eviction has run (FT007 at the free)
SUBCLASS = """\
from sentinel import Sentinel

class Mine(Sentinel):
    def _evict(self, s):
        s.finish_requests(None, "aborted")
"""


@pytest.mark.parametrize("paths", [(), ("other.py",)], ids=["walk", "the-edited-file"])
def test_a_file_edited_into_a_subclass_of_the_handler_class_invalidates(tmp_path, paths):
    """A file that subclasses a handler's class inherits the handler, so a run depends on
    whether each linted file does: turning an existing file into such a subclass is seen
    (the key of the run, its files and candidates, stays the same)."""
    _project(tmp_path)
    (tmp_path / "sentinel.py").write_text(DISPATCHING_HANDLER)
    (tmp_path / "notes.py").write_text(OTHER)
    assert _codes(_lint(tmp_path, paths)) == []
    assert _lint(tmp_path, paths).cache_hit
    (tmp_path / "other.py").write_text(SUBCLASS)
    expected = _codes(_lint(tmp_path, paths, cache_dir=tmp_path / "fresh"))
    assert ("other.py", 5, "FT007") in expected
    assert _codes(_lint(tmp_path, paths)) == expected
    # an edit that makes no file a subclass keeps the entry valid (the files are read again)
    (tmp_path / "notes.py").write_text(OTHER + "# edited\n")
    warm = _lint(tmp_path, paths)
    assert warm.cache_hit and _codes(warm) == expected


# -- a run over the whole project answers pre-commit's later batches ---------------------
PROJECT_HANDLER = """\
from ft_helpers import drop_all, evict_dirty_tails

class Sentinel:
    def on_fault(self, exc):
        if exc is None:
            drop_all(self.scheduler)
            return
        evict_dirty_tails(self.scheduler)
        self.scheduler.finish_requests(None, "aborted")
"""
DROP_ALL = "def drop_all(s):\n    s.reset_prefix_cache()\n"  # FT005, reported in the helper's file


def _batched_project(root: Path, plain: int = PROJECT_RUN_MIN_FILES + 4) -> tuple[list[str], list[str]]:
    """A project whose helper file lands in a batch of many plain files and whose handler
    file is alone in another: (the big batch, the small one)."""
    _project(root, helper=EVICTING + DROP_ALL)
    (root / "sentinel.py").write_text(PROJECT_HANDLER)
    plain_files = [f"mod{i:03d}.py" for i in range(plain)]
    for name in plain_files:
        (root / name).write_text(OTHER)
    return ["ft_helpers.py", "other.py", *plain_files], ["sentinel.py"]


def test_a_batch_of_many_files_caches_the_whole_project_for_the_next_batch(tmp_path):
    big, small = _batched_project(tmp_path)
    walk = _codes(_lint(tmp_path, cache_dir=tmp_path / "walk-cache"))
    assert walk == [("ft_helpers.py", 7, "FT005")]
    first = _lint(tmp_path, big)
    assert not first.cache_hit and _codes(first) == walk  # the helper's finding, reported by its batch
    second = _lint(tmp_path, small)
    assert second.cache_hit and second.files_parsed == 0  # answered by the first batch's run
    assert _codes(second) == []
    # an edit of the helper (outside the second batch) reaches the handler's batch
    (tmp_path / "ft_helpers.py").write_text(NOT_EVICTING + DROP_ALL)
    edited = _lint(tmp_path, small)
    assert not edited.cache_hit
    assert _codes(edited) == [("sentinel.py", 9, "FT007")]
    assert _codes(_lint(tmp_path, small, cache_dir=tmp_path / "fresh")) == _codes(edited)
    # the big batch lints the project again: the handler's finding is left to its batch
    (tmp_path / "other.py").write_text(OTHER + "# edited\n")
    again = _lint(tmp_path, big)
    assert not again.cache_hit and _codes(again) == [("ft_helpers.py", 4, "FT005")]
    last = _lint(tmp_path, small)
    assert last.cache_hit and _codes(last) == [("sentinel.py", 9, "FT007")]


def test_a_walk_of_the_project_answers_any_batch(tmp_path):
    big, small = _batched_project(tmp_path, plain=3)  # small batches: they never lint the project
    walk = _lint(tmp_path, ["."])
    assert _codes(walk) == [("ft_helpers.py", 7, "FT005")]
    for batch, expected in ((small, []), (big, _codes(walk))):
        result = _lint(tmp_path, batch)
        assert result.cache_hit and result.files_parsed == 0
        assert _codes(result) == expected


def test_files_outside_the_projects_walk_are_linted_themselves(tmp_path):
    """A file passed explicitly that the walk skips (.gitignore) is not part of the cached
    project run: the run lints its own files."""
    big, _ = _batched_project(tmp_path)
    (tmp_path / ".gitignore").write_text("scratch.py\n")
    (tmp_path / "scratch.py").write_text(HANDLER)  # its helper no longer evicts: FT007
    (tmp_path / "ft_helpers.py").write_text(NOT_EVICTING + DROP_ALL)
    assert _lint(tmp_path, ["."]).findings  # the project's run, cached (scratch.py not in it)
    result = _lint(tmp_path, [*big, "scratch.py"])
    assert not result.cache_hit
    assert ("scratch.py", 6, "FT007") in _codes(result)


# inherits on_fault; its eviction step evicts nothing, so the base class's free is reached
# with the dirty tails cached (FT007 in sentinel.py, found only when this file is read)
NOT_EVICTING_SUBCLASS = """\
from sentinel import Sentinel

class Mine(Sentinel):
    def _evict(self, s):
        pass
"""


def test_a_project_run_does_not_answer_a_batch_without_its_subclass(tmp_path):
    """A run reads the files of its lint set that subclass a handler's class: a cached run
    over the whole project, which read a subclass outside a batch, answers only batches
    holding it; each batch finds what it finds without a cache."""
    big, _ = _batched_project(tmp_path)
    big = [f for f in big if f != "ft_helpers.py"] + ["sentinel.py"]
    (tmp_path / "sentinel.py").write_text(DISPATCHING_HANDLER)
    (tmp_path / "mine.py").write_text(NOT_EVICTING_SUBCLASS)
    config = load_config(tmp_path)

    def uncached(paths):
        return _codes(lint_paths([Path(p) for p in paths], config, set(known_codes()), cwd=tmp_path))

    assert _codes(_lint(tmp_path, ["."], cache_dir=tmp_path / "walk")) == [("sentinel.py", 13, "FT007")]
    assert uncached(big) == []  # mine.py is not among its files
    assert uncached(["mine.py", "sentinel.py"]) == [("sentinel.py", 13, "FT007")]
    first = _lint(tmp_path, big)  # lints the project (and caches it), then its own files alone
    assert not first.cache_hit and _codes(first) == []
    holding = _lint(tmp_path, ["mine.py", "sentinel.py"])
    assert holding.cache_hit and _codes(holding) == [("sentinel.py", 13, "FT007")]
    again = _lint(tmp_path, big)
    assert _codes(again) == []


def test_a_few_files_answered_by_the_project_run_keep_their_own_entry(tmp_path):
    """A run over a few files answered by the project's run stores that answer under its
    own key (checked first next time: cheaper than the project's thousands of files)."""
    _batched_project(tmp_path, plain=3)
    _lint(tmp_path, ["."])
    runs = tmp_path / ".ftlint_cache" / "runs"
    project_entries = set(runs.iterdir())
    first = _lint(tmp_path, ["ft_helpers.py"])
    assert first.cache_hit and _codes(first) == [("ft_helpers.py", 7, "FT005")]
    assert len(set(runs.iterdir()) - project_entries) == 1
    for entry in project_entries:
        entry.unlink()
    again = _lint(tmp_path, ["ft_helpers.py"])
    assert again.cache_hit and _codes(again) == [("ft_helpers.py", 7, "FT005")]
    # its dependencies are the project run's: an edit of the helper is seen
    (tmp_path / "ft_helpers.py").write_text(NOT_EVICTING + DROP_ALL)
    edited = _lint(tmp_path, ["ft_helpers.py"])
    assert not edited.cache_hit and _codes(edited) == [("ft_helpers.py", 4, "FT005")]
