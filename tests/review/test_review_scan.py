"""`ftlint review` scans the project once: the PR checks ask the lint run's own scope
(project index, fault paths) instead of walking, reading and parsing the project again, and
the review goes through the result cache like `ftlint check`."""

from __future__ import annotations

import builtins
import json
import os
from collections import Counter
from pathlib import Path

import pytest

from ftlint.lint import parallel_scan
from tests.review.review_helpers import FILLED_BODY, Repo, make_pr_repo, run_main

TITLE = "Evict and zero contaminated KV blocks on fault"
# unchanged files: no handler in them (the prefilter rules them out), never parsed
QUIET = ("vllm/config.py", "vllm/utils/strings.py")


@pytest.fixture
def counted_reads(monkeypatch) -> Counter:
    """path -> how many times this process opened it (open() and os.open()). The project
    scan runs in this process (not in parallel_scan's forked child) so that it counts."""
    monkeypatch.setattr(parallel_scan, "ENABLED", False)
    reads: Counter = Counter()
    real_open, real_os_open = builtins.open, os.open

    def counting_open(file, *args, **kwargs):
        if isinstance(file, (str, os.PathLike)):
            reads[os.path.abspath(file)] += 1
        return real_open(file, *args, **kwargs)

    def counting_os_open(path, *args, **kwargs):
        if kwargs.get("dir_fd") is None:
            reads[os.path.abspath(path)] += 1
        return real_os_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting_open)
    monkeypatch.setattr(os, "open", counting_os_open)
    return reads


@pytest.fixture
def quiet_repo(repo: Repo) -> Repo:
    """The resume PR (review_helpers.make_pr_repo) in a project with files it leaves alone."""
    for rel in QUIET:
        repo.write(rel, "def helper(value):\n    return value.strip()\n")
    make_pr_repo(repo)
    for path in _quiet_files(repo):  # older than the cache's racy window: their stat vouches for them
        os.utime(path, (1_600_000_000, 1_600_000_000))
    return repo


def _quiet_files(repo: Repo) -> list[str]:
    return [os.path.abspath(repo.path / rel) for rel in QUIET]


def _review(monkeypatch, capsys, repo: Repo, *extra: str, title: str = TITLE) -> tuple[int, str, str]:
    body = repo.path.parent / "body.md"
    body.write_text(FILLED_BODY, encoding="utf-8")
    return run_main(
        monkeypatch,
        capsys,
        repo.path,
        "review",
        "--base",
        repo.base,
        "--format",
        "json",
        "--title",
        title,
        "--body-file",
        str(body),
        *extra,
    )


def test_pr_checks_read_each_unchanged_file_once(quiet_repo: Repo, monkeypatch, capsys, counted_reads: Counter):
    quiet = _quiet_files(quiet_repo)
    monkeypatch.setenv("FTLINT_NO_CACHE", "1")
    code, out, err = _review(monkeypatch, capsys, quiet_repo)
    assert code == 1, err
    codes = sorted(f["code"] for f in json.loads(out))
    assert codes == ["FT001", "PR002", "PR003", "PR004", "PR005"]  # the PR checks ran, with the fault-path scope
    # the prefilter of the one project scan read them; nothing else did
    assert {path: counted_reads[path] for path in quiet} == dict.fromkeys(quiet, 1)


def test_warm_cache_review_reads_no_unchanged_file(quiet_repo: Repo, monkeypatch, capsys, counted_reads: Counter):
    quiet = _quiet_files(quiet_repo)
    monkeypatch.delenv("FTLINT_NO_CACHE", raising=False)
    first = _review(monkeypatch, capsys, quiet_repo, "--scan-stats")
    assert "(cached result)" not in first[2]
    counted_reads.clear()
    second = _review(monkeypatch, capsys, quiet_repo, "--scan-stats")
    assert "(cached result)" in second[2]
    assert second[:2] == first[:2]  # the same findings, PR checks included
    assert [counted_reads[path] for path in quiet] == [0, 0]  # the stat table answered for them
    # the PR checks' scope (the candidates loaded again on the cache hit) is still there
    assert "EngineCoreSentinel._resume_running" in second[1]


def test_scan_stats_line(quiet_repo: Repo, monkeypatch, capsys):
    monkeypatch.setenv("FTLINT_NO_CACHE", "1")
    code, _, err = _review(monkeypatch, capsys, quiet_repo, "--scan-stats")
    # the changed sentinel is linted; the scan looked at every Python file of the project once
    assert code == 1
    assert err == "ftlint: 1 files linted, 1 parsed, 4 scanned\n"


def test_fault_paths_file_is_fault_path_code_as_in_check(repo: Repo, monkeypatch, capsys):
    """A `fault-paths` file is parsed whole by the lint (not outlined): every function in it
    is fault-path code."""
    repo.write("pyproject.toml", '[tool.ftlint]\nfault-paths = ["pkg/recovery.py"]\n')
    repo.write("pkg/recovery.py", "import os\n\n\n@staticmethod\ndef tidy(s):\n    return s\n")
    repo.base = repo.commit("base")
    repo.write("pkg/recovery.py", "import os\n\n\n@staticmethod\ndef tidy(s):\n    return s.strip()\n")
    code, out, _ = _review(monkeypatch, capsys, repo)
    pr003 = [f["message"] for f in json.loads(out) if f["code"] == "PR003"]
    assert len(pr003) == 1 and "`tidy`" in pr003[0]
    assert code == 1


def test_deleted_handler_file_is_fault_path_by_its_handler_name(repo: Repo, monkeypatch, capsys):
    """No changed file is left to lint: the deleted lines are placed by the base revision's
    functions, a handler by the configured handler names."""
    repo.write(
        "pkg/sentinel.py", "class S:\n    def on_fault(self, exc):\n        self.scheduler.reset_prefix_cache()\n"
    )
    repo.write("pkg/util.py", "def helper():\n    return 1\n")
    repo.base = repo.commit("base")
    repo.remove("pkg/sentinel.py")
    code, out, _ = _review(monkeypatch, capsys, repo, title="Remove the old sentinel")
    messages = {f["code"]: f["message"] for f in json.loads(out)}
    assert sorted(messages) == ["PR003", "PR004"]
    assert "`S.on_fault`" in messages["PR003"] and "reset_prefix_cache" in messages["PR004"]
    assert code == 1
    # deleting a file without a handler is not fault-path code
    repo.commit("sentinel gone")
    repo.base = repo.commit("base 2")
    repo.remove("pkg/util.py")
    code, out, _ = _review(monkeypatch, capsys, repo, title="Remove the old sentinel")
    assert (code, json.loads(out)) == (0, [])


def test_a_review_without_pr_checks_keeps_no_scope(pr_repo: Repo, monkeypatch, capsys):
    """keep_scope is asked only for PR002-PR004: the file rules alone lint as `check` does."""
    from ftlint.lint import engine

    seen: list[bool] = []
    real = engine.lint_paths

    def spy(*args, **kwargs):
        seen.append(kwargs.get("keep_scope", False))
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "lint_paths", spy)
    monkeypatch.setenv("FTLINT_NO_CACHE", "1")
    run_main(monkeypatch, capsys, pr_repo.path, "review", "--base", pr_repo.base, "--format", "json")
    body = Path(pr_repo.path.parent / "b.md")
    body.write_text(FILLED_BODY, encoding="utf-8")
    run_main(monkeypatch, capsys, pr_repo.path, "review", "--base", pr_repo.base, "--body-file", str(body))
    assert seen == [False, True]


def test_scan_stats_with_nothing_to_lint(pr_repo: Repo, monkeypatch, capsys):
    code, out, err = run_main(
        monkeypatch, capsys, pr_repo.path, "review", "--base", "HEAD", "--format", "json", "--scan-stats"
    )
    assert (code, json.loads(out), err) == (0, [], "ftlint: 0 files linted, 0 parsed, 0 scanned\n")
