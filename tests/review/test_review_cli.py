"""`ftlint review --base REV` end to end on real git repositories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.review.review_helpers import (
    FILLED_BODY,
    PR_SENTINEL,
    PREEMPT_LINE,
    RESET_LINE,
    SENTINEL,
    Repo,
    git,
    run_cli,
    run_main,
)

SELECT = ("--select", "FT001,FT005")


def _codes_lines(findings: list[dict]) -> list[tuple[str, str, int]]:
    """The file findings (PR005, a summary of the unchanged lines, has its own tests)."""
    return sorted((f["code"], f["path"], f["line"]) for f in findings if f["path"])


def test_added_mode_reports_exactly_the_changed_lines(pr_repo: Repo):
    proc = run_cli(pr_repo.path, "review", "--base", pr_repo.base, *SELECT, "--format", "json")
    assert proc.returncode == 1, proc.stderr
    findings = json.loads(proc.stdout)
    assert _codes_lines(findings) == [("FT001", SENTINEL, PREEMPT_LINE)]
    # The untouched reset_prefix_cache() line (FT005) is not a changed line: it is not
    # reported at its line, only named in the summary (PR005: on_fault is edited).
    assert [f["code"] for f in findings if not f["path"]] == ["PR005"]


def test_a_finding_left_on_an_unchanged_line_of_an_edited_handler_is_in_the_summary(pr_repo: Repo):
    """Issue 23: `--filter added` hid the finding a fix left on an unchanged line of the
    handler it edits; PR005 lists it, with or without --title."""
    proc = run_cli(pr_repo.path, "review", "--base", pr_repo.base, *SELECT, "--format", "json")
    (left,) = [f for f in json.loads(proc.stdout) if f["code"] == "PR005"]
    assert (left["path"], left["line"]) == ("", 0)  # the summary: not an inline comment
    assert "`EngineCoreSentinel.on_fault`" in left["message"]
    assert f"FT005 at line {RESET_LINE}" in left["message"] and "reset_prefix_cache" in left["message"]
    review = json.loads(
        run_cli(pr_repo.path, "review", "--base", pr_repo.base, *SELECT, "--format", "github-review").stdout
    )
    assert [c["line"] for c in review["comments"]] == [PREEMPT_LINE]
    assert "PR005" in review["body"] and f"FT005 at line {RESET_LINE}" in review["body"]
    # --ignore PR005 drops it; with --filter file the FT005 is reported itself, not summarised.
    quiet = run_cli(pr_repo.path, "review", "--base", pr_repo.base, *SELECT, "--ignore", "PR005", "--format", "json")
    assert [f["code"] for f in json.loads(quiet.stdout)] == ["FT001"]
    whole = run_cli(pr_repo.path, "review", "--base", pr_repo.base, *SELECT, "--filter", "file", "--format", "json")
    assert sorted(f["code"] for f in json.loads(whole.stdout)) == ["FT001", "FT005"]


def _review_sentinel_change(repo: Repo, before: str, after: str):
    """`ftlint review --format json` of a change of pkg/sentinel.py from `before` to `after`."""
    repo.write("pkg/sentinel.py", before)
    repo.base = repo.commit("base")
    repo.write("pkg/sentinel.py", after)
    return run_cli(repo.path, "review", "--base", repo.base, *SELECT, "--format", "json")


def test_a_finding_in_a_function_the_change_does_not_edit_stays_out(repo: Repo):
    proc = _review_sentinel_change(
        repo,
        "class S:\n    def on_fault(self, exc):\n        self.s.reset_prefix_cache()\n\n"
        "    def retry(self):\n        return 1\n",
        "class S:\n    def on_fault(self, exc):\n        self.s.reset_prefix_cache()\n\n"
        "    def retry(self):\n        return 2\n",
    )
    assert (proc.returncode, json.loads(proc.stdout)) == (0, [])


def test_a_deletion_inside_a_handler_edits_it(repo: Repo):
    proc = _review_sentinel_change(
        repo,
        "class S:\n    def on_fault(self, exc):\n        self.s.reset_prefix_cache()\n"
        "        self.log(exc)\n        self.s.finish_requests(None, 3)\n",
        "class S:\n    def on_fault(self, exc):\n        self.s.reset_prefix_cache()\n"
        "        self.s.finish_requests(None, 3)\n",
    )
    (left,) = json.loads(proc.stdout)
    assert left["code"] == "PR005" and "`S.on_fault`" in left["message"] and "FT005 at line 3" in left["message"]


def test_file_mode_also_reports_untouched_lines_of_changed_files(pr_repo: Repo):
    proc = run_cli(pr_repo.path, "review", "--base", pr_repo.base, *SELECT, "--filter", "file", "--format", "json")
    assert proc.returncode == 1, proc.stderr
    assert _codes_lines(json.loads(proc.stdout)) == [
        ("FT001", SENTINEL, PREEMPT_LINE),
        ("FT005", SENTINEL, RESET_LINE),
    ]


def test_check_agrees_with_file_mode(pr_repo: Repo):
    review = run_cli(pr_repo.path, "review", "--base", pr_repo.base, *SELECT, "--filter", "none", "--format", "json")
    check = run_cli(pr_repo.path, "check", SENTINEL, *SELECT, "--format", "json")
    assert json.loads(review.stdout) == json.loads(check.stdout)


def test_diff_context_mode_includes_hunk_context(pr_repo: Repo, monkeypatch, capsys):
    # reset_prefix_cache() is line 15; the hunk that adds `if self.resume:` (16) shows it as context.
    code, out, _ = run_main(
        monkeypatch,
        capsys,
        pr_repo.path,
        "review",
        "--base",
        pr_repo.base,
        *SELECT,
        "--filter",
        "diff-context",
        "--format",
        "json",
    )
    assert code == 1
    assert ("FT005", SENTINEL, RESET_LINE) in _codes_lines(json.loads(out))


def test_reviewdog_filter_spellings(pr_repo: Repo, monkeypatch, capsys):
    code, out, _ = run_main(
        monkeypatch,
        capsys,
        pr_repo.path,
        "review",
        "--base",
        pr_repo.base,
        *SELECT,
        "--filter",
        "nofilter",
        "--format",
        "json",
    )
    assert code == 1 and len(json.loads(out)) == 2


def test_no_change_is_clean(pr_repo: Repo):
    proc = run_cli(pr_repo.path, "review", "--base", "HEAD", *SELECT, "--format", "text")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""


def test_unchanged_files_are_never_reported(pr_repo: Repo):
    # Another fault handler with a bad line, committed in the base: unchanged by the PR.
    pr_repo.write(
        "vllm/other_sentinel.py", "class Other:\n    def on_fault(self, exc):\n        self.s.reset_prefix_cache()\n"
    )
    git(pr_repo.path, "add", "-A")
    git(pr_repo.path, "commit", "-q", "-m", "other")
    head = git(pr_repo.path, "rev-parse", "HEAD").strip()
    pr_repo.write("README.md", "docs only\n")
    for mode in ("added", "file", "none"):
        proc = run_cli(pr_repo.path, "review", "--base", head, *SELECT, "--filter", mode, "--format", "json")
        assert proc.returncode == 0, (mode, proc.stdout, proc.stderr)
        assert json.loads(proc.stdout) == []


def test_helper_changed_handler_unchanged_uses_whole_project(repo: Repo):
    """The handler lives in an unchanged file; the PR changes only the helper it calls."""
    repo.write(
        "pkg/sentinel.py",
        "from pkg.recovery import resume_all\n\n\nclass Sentinel:\n    def on_fault(self, exc):\n"
        "        resume_all(self.scheduler)\n",
    )
    repo.write("pkg/recovery.py", "def resume_all(scheduler):\n    for r in scheduler.running:\n        pass\n")
    repo.write("pkg/__init__.py", "")
    base = repo.commit("base")
    repo.write(
        "pkg/recovery.py",
        "def resume_all(scheduler):\n    for r in scheduler.running:\n"
        "        scheduler._preempt_request(r, 0.0, drop_stale_output=True)\n",
    )
    proc = run_cli(repo.path, "review", "--base", base, *SELECT, "--format", "json")  # uncommitted change
    assert proc.returncode == 1, proc.stderr
    assert _codes_lines(json.loads(proc.stdout)) == [("FT001", "pkg/recovery.py", 3)]


def test_untracked_new_file_counts_as_added(repo: Repo):
    repo.write("README.md", "x\n")
    base = repo.commit("base")
    repo.write("new_sentinel.py", "class S:\n    def on_fault(self, exc):\n        self.s.reset_prefix_cache()\n")
    proc = run_cli(repo.path, "review", "--base", base, *SELECT, "--format", "json")
    assert proc.returncode == 1
    assert _codes_lines(json.loads(proc.stdout)) == [("FT005", "new_sentinel.py", 3)]


def test_paths_limit_the_review(pr_repo: Repo):
    pr_repo.write("elsewhere/s.py", "class S:\n    def on_fault(self, exc):\n        self.s.reset_prefix_cache()\n")
    proc = run_cli(pr_repo.path, "review", "--base", pr_repo.base, *SELECT, "--format", "json", "elsewhere")
    assert _codes_lines(json.loads(proc.stdout)) == [("FT005", "elsewhere/s.py", 3)]
    proc = run_cli(pr_repo.path, "review", "--base", pr_repo.base, *SELECT, "--format", "json", "vllm")
    assert _codes_lines(json.loads(proc.stdout)) == [("FT001", SENTINEL, PREEMPT_LINE)]


def test_from_a_subdirectory_paths_are_cwd_relative(pr_repo: Repo):
    sub = pr_repo.path / "vllm" / "v1"
    proc = run_cli(sub, "review", "--base", pr_repo.base, *SELECT, "--format", "json")
    assert proc.returncode == 1, proc.stderr
    assert _codes_lines(json.loads(proc.stdout)) == [("FT001", "fault_tolerance/engine_core_sentinel.py", PREEMPT_LINE)]


def test_github_review_comments_only_inside_the_diff(pr_repo: Repo):
    proc = run_cli(
        pr_repo.path, "review", "--base", pr_repo.base, *SELECT, "--filter", "file", "--format", "github-review"
    )
    assert proc.returncode == 1, proc.stderr
    review = json.loads(proc.stdout)
    assert review["event"] == "COMMENT"
    assert [(c["path"], c["line"], c["side"]) for c in review["comments"]] == [(SENTINEL, PREEMPT_LINE, "RIGHT")]
    # FT005 is on an unchanged line: GitHub would reject a comment there, so it is in the body.
    assert "FT005" in review["body"]
    assert "```suggestion" in review["comments"][0]["body"]


@pytest.mark.parametrize("fmt", ["markdown", "github", "rdjson", "rdjsonl", "sarif", "text", "json", "jsonl"])
def test_every_format_works(pr_repo: Repo, fmt: str, tmp_path: Path):
    body = tmp_path / "body.md"
    body.write_text(FILLED_BODY, encoding="utf-8")
    proc = run_cli(
        pr_repo.path,
        "review",
        "--base",
        pr_repo.base,
        *SELECT,
        "--format",
        fmt,
        "--title",
        "Resume requests on fault",
        "--body-file",
        str(body),
    )
    assert proc.returncode == 1, proc.stderr
    assert "FT001" in proc.stdout
    assert proc.stderr == ""
    if fmt in ("rdjson", "sarif", "json"):
        json.loads(proc.stdout)
    if fmt in ("rdjsonl", "jsonl"):
        for line in proc.stdout.splitlines():
            json.loads(line)
    if fmt == "sarif":
        rules = {r["id"] for r in json.loads(proc.stdout)["runs"][0]["tool"]["driver"]["rules"]}
        assert "FT001" in rules


def test_markdown_is_the_default_and_includes_pr_docs(pr_repo: Repo, tmp_path: Path):
    body = tmp_path / "body.md"
    body.write_text("", encoding="utf-8")
    proc = run_cli(pr_repo.path, "review", "--base", pr_repo.base, *SELECT, "--body-file", str(body))
    assert proc.returncode == 1
    assert proc.stdout.startswith("ftlint found")
    assert "empty-description" in proc.stdout and "Why is this bad?" in proc.stdout


def test_sarif_carries_file_findings_and_counts_pr_level_ones(pr_repo: Repo, tmp_path: Path):
    # Code scanning needs a file location: PR-level findings are counted, not uploaded.
    body = tmp_path / "body.md"
    body.write_text("", encoding="utf-8")
    proc = run_cli(
        pr_repo.path, "review", "--base", pr_repo.base, *SELECT, "--body-file", str(body), "--format", "sarif"
    )
    assert proc.returncode == 1
    run = json.loads(proc.stdout)["runs"][0]
    assert [r["ruleId"] for r in run["results"]] == ["FT001"]
    assert run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == SENTINEL
    assert run["properties"]["omittedFindings"] >= 1


def test_output_file(pr_repo: Repo, tmp_path: Path):
    out = tmp_path / "review.json"
    proc = run_cli(pr_repo.path, "review", "--base", pr_repo.base, *SELECT, "--format", "json", "-o", str(out))
    assert proc.returncode == 1 and proc.stdout == ""
    assert [f["code"] for f in json.loads(out.read_text(encoding="utf-8"))] == ["PR005", "FT001"]


def test_exit_zero(pr_repo: Repo):
    proc = run_cli(pr_repo.path, "review", "--base", pr_repo.base, *SELECT, "--exit-zero", "--format", "json")
    assert proc.returncode == 0 and json.loads(proc.stdout)


def test_merge_base(pr_repo: Repo):
    # main moved on after the PR branched; --merge-base diffs against the fork point.
    git(pr_repo.path, "checkout", "-q", "-b", "feature")
    git(pr_repo.path, "checkout", "-q", "main")
    git(pr_repo.path, "reset", "-q", "--hard", pr_repo.base)
    pr_repo.write("unrelated.txt", "main moved\n")
    main_tip = pr_repo.commit("main moves")
    git(pr_repo.path, "checkout", "-q", "feature")
    proc = run_cli(pr_repo.path, "review", "--base", main_tip, "--merge-base", *SELECT, "--format", "json")
    assert proc.returncode == 1, proc.stderr
    assert _codes_lines(json.loads(proc.stdout)) == [("FT001", SENTINEL, PREEMPT_LINE)]


# -- errors: exit 2, one line, no traceback -------------------------------------------------------


def _one_line_error(proc) -> str:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("ftlint: error:")]
    assert len(errors) == 1, proc.stderr
    return errors[0]


def test_unknown_revision(pr_repo: Repo):
    line = _one_line_error(run_cli(pr_repo.path, "review", "--base", "no-such-branch"))
    assert "no-such-branch" in line and "unknown revision" in line


def test_option_like_revision_is_rejected(pr_repo: Repo):
    line = _one_line_error(run_cli(pr_repo.path, "review", "--base=--output=/tmp/x"))
    assert "not a revision" in line


def test_not_a_git_repository(tmp_path: Path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.py").write_text("x = 1\n", encoding="utf-8")
    line = _one_line_error(run_cli(plain, "review", "--base", "HEAD"))
    assert "not inside a git repository" in line


def test_git_missing(pr_repo: Repo, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(pr_repo.path / "no-bin-here"))
    code, _, err = run_main(monkeypatch, capsys, pr_repo.path, "review", "--base", "HEAD")
    assert code == 2
    assert err.strip() == "ftlint: error: git is not installed or not on PATH"


def test_missing_base_is_a_usage_error(pr_repo: Repo):
    proc = run_cli(pr_repo.path, "review")
    assert proc.returncode == 2 and "--base" in proc.stderr and "Traceback" not in proc.stderr


def test_bad_filter_mode(pr_repo: Repo):
    proc = run_cli(pr_repo.path, "review", "--base", "HEAD", "--filter", "lines")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_missing_body_file(pr_repo: Repo):
    line = _one_line_error(run_cli(pr_repo.path, "review", "--base", "HEAD", "--body-file", "nope.md"))
    assert "nope.md" in line


def test_unknown_pr_code(pr_repo: Repo):
    line = _one_line_error(run_cli(pr_repo.path, "review", "--base", "HEAD", "--select", "PR9"))
    assert "PR9" in line


def test_missing_path(pr_repo: Repo):
    line = _one_line_error(run_cli(pr_repo.path, "review", "--base", "HEAD", "no/such/dir"))
    assert "no/such/dir" in line


def test_worktree_unchanged_sentinel_still_matches(pr_repo: Repo):
    assert (pr_repo.path / SENTINEL).read_text(encoding="utf-8") == PR_SENTINEL


def test_repository_fsmonitor_hook_never_runs(pr_repo: Repo, tmp_path: Path):
    """A repository's `core.fsmonitor` names a program git runs when it refreshes the index
    (`git diff` against the working tree does): review must not run it (issue 16, item 15)."""
    marker = tmp_path / "fsmonitor-ran"
    hook = tmp_path / "fsmonitor-hook.sh"
    hook.write_text(f"#!/bin/sh\necho \"$@\" >> '{marker}'\nexit 1\n")
    hook.chmod(0o755)
    git(pr_repo.path, "config", "core.fsmonitor", str(hook))
    git(pr_repo.path, "status", "--porcelain")  # git itself runs it: the hook works
    assert marker.exists()
    marker.unlink()
    pr_repo.write("vllm/extra.py", "x = 1\n")  # a change and an untracked file: diff + ls-files
    proc = run_cli(pr_repo.path, "review", "--base", pr_repo.base, "--merge-base", "--format", "json")
    assert proc.returncode == 1, proc.stderr
    assert not marker.exists(), marker.read_text()


@pytest.mark.parametrize("key", ["clean", "process"])
def test_repository_filter_drivers_never_run(pr_repo: Repo, tmp_path: Path, key: str):
    """A `.gitattributes` that names a filter driver makes `git diff` run the driver's clean (or
    process) command on the working-tree file it re-reads: review must run none (issue 23)."""
    marker = tmp_path / "filter-ran"
    command = tmp_path / "filter.sh"
    command.write_text(f"#!/bin/sh\necho \"$@\" >> '{marker}'\nexec cat\n")
    command.chmod(0o755)
    pr_repo.write(".gitattributes", "*.py filter=my.lfs\n")
    pr_repo.commit("attributes")
    git(pr_repo.path, "config", f"filter.my.lfs.{key}", str(command))
    git(pr_repo.path, "config", "filter.my.lfs.required", "true")
    sentinel = pr_repo.path / SENTINEL
    sentinel.write_text(sentinel.read_text(encoding="utf-8") + "\n# touched\n", encoding="utf-8")
    if key == "clean":
        git(pr_repo.path, "diff", "--stat", pr_repo.base)  # git itself runs it: the filter works
        assert marker.exists()
        marker.unlink()
    proc = run_cli(pr_repo.path, "review", "--base", pr_repo.base, *SELECT, "--format", "json")
    assert proc.returncode == 1, proc.stderr
    assert not marker.exists(), marker.read_text()
    assert _codes_lines(json.loads(proc.stdout)) == [("FT001", SENTINEL, PREEMPT_LINE)]
