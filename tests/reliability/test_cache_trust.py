"""A result cache can be wrong only by being absent (issue 16, items 8-10).

Each test builds a real project whose handler has a finding (FT007), runs the real
`ftlint check` as a subprocess to fill the cache, tampers with the cache as a committed
`.ftlint_cache` (or a repository's `cache-dir`) could, and runs again: the finding must
still be reported, exit 1, no traceback. The tests write cache files themselves, so they
know the on-disk format: a first line `ftlint-cache <format> <check>` and a JSON body;
format 1 (before this fix) checked an unkeyed BLAKE2b of the body, format 2 a MAC keyed
with the user's secret (`$XDG_CACHE_HOME/ftlint/cache-key`) over "<format>/<kind>/<name>\\n"
and the body. Entries are forged for whichever format the cache holds.
"""

from __future__ import annotations

import json
import os
import time
from hashlib import blake2b
from pathlib import Path

import pytest

from tests.helpers import git, run_ftlint

HANDLER = """\
from ft_helpers import evict_dirty_tails

class Sentinel:
    def on_fault(self, exc):
        evict_dirty_tails(self.scheduler)
        self.scheduler.finish_requests(None, "aborted")
"""
NOT_EVICTING = "def evict_dirty_tails(s):\n    return None\n"
EXPECTED = ("sentinel.py", 6, "FT007")
MEMORY_LIMIT = 4 << 30  # a run that reads without limit fails instead of taking the machine


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _project(root: Path, config: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git("init", "-q", str(root), cwd=root)
    (root / "pyproject.toml").write_text("[tool.ftlint]\n" + config)
    (root / "sentinel.py").write_text(HANDLER)
    (root / "ft_helpers.py").write_text(NOT_EVICTING)
    (root / "pkg").mkdir()
    (root / "pkg" / "other.py").write_text("def unrelated():\n    return 1\n")
    _age(root)
    return root


def _age(root: Path) -> None:
    """Move mtimes into the past: entries for just-modified files and directories are not
    stored (racy), and the attacks below need them stored."""
    then = time.time_ns() - 60 * 1_000_000_000
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            os.utime(os.path.join(directory, name), ns=(then, then), follow_symlinks=False)
    os.utime(root, ns=(then, then))


def _check(project: Path, user: Path, *args: str, timeout: int = 300):
    """`ftlint check` as `user` (their own XDG cache home, hence their own secret)."""
    proc = run_ftlint(
        "check",
        "--format",
        "json",
        "--scan-stats",
        *args,
        cwd=project,
        env={"FTLINT_NO_CACHE": None, "XDG_CACHE_HOME": os.fspath(user)},
        timeout=timeout,
        preexec_fn=_limit_memory,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    codes = [(f["path"], f["line"], f["code"]) for f in json.loads(proc.stdout or "[]")]
    return proc.returncode, codes, proc.stderr


def _assert_found(result) -> None:
    rc, codes, stderr = result
    assert rc == 1 and EXPECTED in codes, (rc, codes, stderr)


def _entries(cache: Path, kind: str) -> list[Path]:
    """The cache's entries of one kind, in either layout."""
    if (cache / kind).is_dir():
        return sorted((cache / kind).glob("*.json"))
    prefix = {"stat": "stat-", "listings": "listing-"}.get(kind)
    return sorted(cache.glob(prefix + "*.json")) if prefix else []


def _key(user: Path) -> bytes:
    return (user / "ftlint" / "cache-key").read_bytes()


def _rewrite(path: Path, change, key: bytes | None) -> None:
    """Apply `change` to the entry's payload and sign it again: with the unkeyed checksum
    of format 1 (key None, what the issue's attacker did), or for format 2 with `key`."""
    head, body = path.read_bytes().split(b"\n", 1)
    version = head.split(b" ")[1]
    payload = change(json.loads(body))
    body = json.dumps(payload, separators=(",", ":")).encode()
    if version == b"1" or key is None:
        check = blake2b(body, digest_size=16).hexdigest()
    else:
        kind = path.parent.name
        mac = blake2b(f"{version.decode()}/{kind}/{path.stem}\n".encode(), digest_size=32, key=key)
        mac.update(body)
        check = mac.hexdigest()
    path.write_bytes(b"ftlint-cache %s %s\n%s" % (version, check.encode(), body))


def _users(tmp_path: Path) -> tuple[Path, Path]:
    return tmp_path / "attacker-home-cache", tmp_path / "victim-home-cache"


# -- item 8: a cache from someone else is never trusted -----------------------------------------
@pytest.mark.parametrize("signer", ["checksum", "attacker-key"])
@pytest.mark.parametrize("where", ["default", "cache-dir"])
def test_committed_run_entry_with_findings_emptied_is_a_miss(tmp_path, where, signer):
    """The attacker commits their cache with the findings emptied and the entry signed
    again (with the unkeyed checksum, or with their own ftlint's secret); a clone at the
    same path still reports the finding, whether the cache is the default `.ftlint_cache`
    or a `cache-dir` the repository names."""
    attacker, victim = _users(tmp_path)
    config = 'cache-dir = "committed-cache"\n' if where == "cache-dir" else ""
    project = _project(tmp_path / "repo", config)
    cache = project / ("committed-cache" if where == "cache-dir" else ".ftlint_cache")
    _assert_found(_check(project, attacker))
    runs = _entries(cache, "runs")
    assert runs
    key = _key(attacker) if signer == "attacker-key" and (attacker / "ftlint" / "cache-key").exists() else None
    for path in runs:
        _rewrite(path, lambda entry: {**entry, "findings": []}, key)
    if signer == "attacker-key":
        assert _check(project, attacker)[:2] == (0, [])  # the forgery is good: the attacker's own ftlint takes it
    _assert_found(_check(project, victim))


@pytest.mark.parametrize("signer", ["checksum", "attacker-key"])
def test_committed_stat_table_saying_no_handler_is_a_miss(tmp_path, signer):
    """Marking the handler's file "cannot hold a handler" in the stat table hid its findings."""
    attacker, victim = _users(tmp_path)
    project = _project(tmp_path / "repo")
    cache = project / ".ftlint_cache"
    _assert_found(_check(project, attacker))
    sentinel = os.fspath(project / "sentinel.py")
    key = _key(attacker) if signer == "attacker-key" and (attacker / "ftlint" / "cache-key").exists() else None
    marked = 0
    for path in _entries(cache, "stat"):
        table = json.loads(path.read_bytes().split(b"\n", 1)[1])
        if sentinel in table:
            _rewrite(path, lambda t: {**t, sentinel: [*t[sentinel][:4], False, ""]}, key)
            marked += 1
    assert marked == 1
    for path in _entries(cache, "runs"):
        path.unlink()
    _assert_found(_check(project, victim))


def test_committed_outline_that_is_empty_is_a_miss(tmp_path):
    """An empty outline for the handler's file (no functions) hid every finding."""
    attacker, victim = _users(tmp_path)
    project = _project(tmp_path / "repo")
    cache = project / ".ftlint_cache"
    _assert_found(_check(project, attacker, "sentinel.py"))
    outlines = _entries(cache, "outlines")
    assert outlines
    for path in outlines:
        _rewrite(path, lambda entry: {"ops": []}, None)
    for path in _entries(cache, "runs"):
        path.unlink()
    _assert_found(_check(project, victim, "sentinel.py"))


# -- item 9: files, links and housekeeping --------------------------------------------------------
@pytest.mark.parametrize("plant", ["symlink-to-dev-zero", "sparse-1-GiB-file"])
def test_planted_file_at_an_entrys_name_is_not_read(tmp_path, plant):
    """A committed symlink to /dev/zero (or a huge file) at a cache file's predictable name:
    the run completes (memory-limited, with a timeout) with the right findings."""
    if plant == "symlink-to-dev-zero" and not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    attacker, victim = _users(tmp_path)
    project = _project(tmp_path / "repo")
    cache = project / ".ftlint_cache"
    _assert_found(_check(project, attacker))
    planted = [p for kind in ("runs", "stat", "listings", "outlines") for p in _entries(cache, kind)]
    assert len(planted) >= 3
    for path in planted:
        path.unlink()
        if plant == "symlink-to-dev-zero":
            path.symlink_to("/dev/zero")
        else:
            with open(path, "wb") as fh:
                fh.truncate(1 << 30)
    _assert_found(_check(project, victim, timeout=120))
    _assert_found(_check(project, victim, timeout=120))  # and again, over what the first run wrote


def _foreign(directory: Path, count: int) -> dict[Path, bytes]:
    """`count` JSON files that are not ftlint's, named as ftlint names its entries, old."""
    directory.mkdir(parents=True, exist_ok=True)
    files = {}
    for i in range(count):
        path = directory / f"{i:040x}.json"
        data = json.dumps({"user data": i}).encode()
        path.write_bytes(data)
        os.utime(path, (1_000_000 + i, 1_000_000 + i))
        files[path] = data
    return files


@pytest.mark.parametrize("link", ["runs-dir-is-a-link", "cache-dir-is-a-link"])
def test_housekeeping_through_a_committed_link_deletes_nothing_outside(tmp_path, link):
    """600 JSON files outside the repository, reached through a committed symlink: the old
    housekeeping deleted the oldest past 512 of them."""
    _, victim = _users(tmp_path)
    project = _project(tmp_path / "repo")
    outside = tmp_path / "outside"
    if link == "runs-dir-is-a-link":
        files = _foreign(outside, 600)
        (project / ".ftlint_cache").mkdir()
        (project / ".ftlint_cache" / "runs").symlink_to(outside, target_is_directory=True)
    else:
        files = _foreign(outside / "runs", 600)
        files.update(_foreign(outside / "stat", 8))
        (project / ".ftlint_cache").symlink_to(outside, target_is_directory=True)
    for _ in range(2):
        _assert_found(_check(project, victim))
    assert {p: p.read_bytes() for p in files if p.exists()} == files


def test_housekeeping_deletes_only_ftlint_entries(tmp_path):
    """In ftlint's own subdirectory, past the limit: the stale entries that carry ftlint's
    header go, the foreign files stay."""
    _, victim = _users(tmp_path)
    project = _project(tmp_path / "repo")
    runs = project / ".ftlint_cache" / "runs"
    foreign = _foreign(runs, 300)  # the oldest
    stale = []
    for i in range(600):
        path = runs / f"{i + 10_000:040x}.json"
        path.write_bytes(b"ftlint-cache 2 0\n{}")
        os.utime(path, (2_000_000 + i, 2_000_000 + i))
        stale.append(path)
    _assert_found(_check(project, victim))
    assert {p: p.read_bytes() for p in foreign if p.exists()} == foreign
    assert len(list(runs.glob("*.json"))) == 512  # the limit (MAX_RUN_ENTRIES), met with stale entries only
    assert len([p for p in stale if p.exists()]) == 512 - 300 - 1
    again = _check(project, victim)  # the entry just written was kept
    _assert_found(again)
    assert ", 0 parsed" in again[2]


def test_no_tag_or_gitignore_in_a_chosen_cache_dir_holding_other_files(tmp_path):
    _, victim = _users(tmp_path)
    project = _project(tmp_path / "repo")
    chosen = tmp_path / "mine"
    chosen.mkdir()
    (chosen / "notes.txt").write_text("mine\n")
    _assert_found(_check(project, victim, "--cache-dir", os.fspath(chosen)))
    second = _check(project, victim, "--cache-dir", os.fspath(chosen))
    _assert_found(second)
    assert ", 0 parsed" in second[2]  # the cache works there
    assert sorted(p.name for p in chosen.iterdir() if p.is_file()) == ["notes.txt"]
    fresh = tmp_path / "fresh"
    _assert_found(_check(project, victim, "--cache-dir", os.fspath(fresh)))
    assert (fresh / "CACHEDIR.TAG").is_file() and (fresh / ".gitignore").is_file()


# -- item 10: entries of the wrong shape (signed by this user's own ftlint) -----------------------
def _own_key(victim: Path) -> bytes | None:
    path = victim / "ftlint" / "cache-key"
    return path.read_bytes() if path.exists() else None


def _listing_bad_names(payload):
    for listing in payload["dirs"].values():
        listing[2] = [[123, "f"], ["x"]]
    return payload


def _listing_not_lists(payload):
    for listing in payload["dirs"].values():
        listing[2], listing[3] = {"sentinel.py": "f"}, "pkg"
    return payload


def _stat_bit_as_number(table):
    return {path: [*entry[:4], 0, 0] for path, entry in table.items()}


def _outline_bad_ops(payload):
    return {"ops": [["f", 1, "self", None, "x", 2], ["e"], ["e"]]}


def _outline_unbalanced(payload):
    return {"ops": [["e"], ["c", "Sentinel", []], ["f", "on_fault", ["self", "exc"], [], 4, 6]]}


def _run_bad_findings(entry):
    return {**entry, "findings": [*entry["findings"], *({**f, "line": "six"} for f in entry["findings"])]}


def _run_bad_errors(entry):
    return {**entry, "errors": [{"not": "a message"}]}


def _run_bad_deps(entry):
    return {**entry, "deps": [[3, None]], "probes": "none"}


@pytest.mark.parametrize(
    "kind, change, args",
    [
        ("listings", _listing_bad_names, ()),
        ("listings", _listing_not_lists, ()),
        ("stat", _stat_bit_as_number, ()),
        ("outlines", _outline_bad_ops, ("sentinel.py",)),
        ("outlines", _outline_unbalanced, ("sentinel.py",)),
        ("runs", _run_bad_findings, ()),
        ("runs", _run_bad_errors, ()),
        ("runs", _run_bad_deps, ()),
    ],
    ids=[
        "listing-bad-names",
        "listing-not-lists",
        "stat-bit-as-number",
        "outline-bad-ops",
        "outline-unbalanced",
        "run-bad-findings",
        "run-bad-errors",
        "run-bad-deps",
    ],
)
def test_entry_of_the_wrong_shape_is_a_miss(tmp_path, kind, change, args):
    _, victim = _users(tmp_path)
    project = _project(tmp_path / "repo")
    cache = project / ".ftlint_cache"
    _assert_found(_check(project, victim, *args))
    entries = _entries(cache, kind)
    assert entries
    key = _own_key(victim)
    for path in entries:
        _rewrite(path, change, key)
    if kind in ("outlines", "stat", "listings"):  # replayed only when the run is not a hit
        for path in _entries(cache, "runs"):
            path.unlink()
    _assert_found(_check(project, victim, *args))


# -- the per-user secret ---------------------------------------------------------------------------
def test_the_secret_is_the_users_own_and_outside_the_project(tmp_path):
    """Created 0600 under the user's cache home; one others could read is replaced (and
    what was signed with it is a miss)."""
    _, victim = _users(tmp_path)
    project = _project(tmp_path / "repo")
    _assert_found(_check(project, victim))
    key = victim / "ftlint" / "cache-key"
    assert key.stat().st_mode & 0o777 == 0o600 and len(key.read_bytes()) == 32
    secret = key.read_bytes()
    assert not any(secret in p.read_bytes() for p in project.rglob("*") if p.is_file())
    assert ", 0 parsed" in _check(project, victim)[2]
    key.chmod(0o644)
    after = _check(project, victim)
    _assert_found(after)
    assert ", 0 parsed" not in after[2]  # a miss: entries signed with a readable key are not trusted
    assert key.stat().st_mode & 0o777 == 0o600 and key.read_bytes() != secret
    assert ", 0 parsed" in _check(project, victim)[2]


def test_without_a_usable_secret_there_is_no_cache(tmp_path):
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("")
    project = _project(tmp_path / "repo")
    for _ in range(2):
        rc, codes, stderr = _check(project, not_a_directory)
        assert rc == 1 and EXPECTED in codes and ", 0 parsed" not in stderr
    assert not (project / ".ftlint_cache").exists()
