"""PR001–PR004 on realistic titles, descriptions and diffs."""

from __future__ import annotations

import json

import pytest

from ftlint.review.pr_checks import claimed_actions, description_gaps, is_test_path, pr_docs
from tests.review.review_helpers import FILLED_BODY, SENTINEL, Repo, run_cli, run_main

# A template shaped like vLLM's pull-request template (written here, not copied).
TEMPLATE = """\
<!-- markdownlint-disable -->
PLEASE FILL IN THE PR DESCRIPTION HERE ENSURING ALL CHECKLIST ITEMS (AT THE BOTTOM) HAVE BEEN CONSIDERED.

## Purpose

## Test Plan

## Test Result

---
<details>
<summary> Essential Elements of an Effective PR Description Checklist </summary>

- [ ] The purpose of the PR.
- [ ] The test plan.
- [ ] The test results.
</details>

**BEFORE SUBMITTING, PLEASE READ <https://docs.vllm.ai/en/latest/contributing>** (anything written below this line will be removed by GitHub Actions)
"""

SELECT = ("--select", "FT001,FT005")


def _fill(purpose: str = "", plan: str = "", result: str = "") -> str:
    return (
        TEMPLATE.replace("## Purpose\n", f"## Purpose\n{purpose}\n")
        .replace("## Test Plan\n", f"## Test Plan\n{plan}\n")
        .replace("## Test Result\n", f"## Test Result\n{result}\n")
    )


# -- PR001: the description -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "",
        "   \n\n",
        TEMPLATE,
        "<!-- write something -->\n",
        _fill(purpose="<!-- why? -->", plan="<!-- how? -->", result="<!--\nmulti\nline\n-->"),
        "\u200b\n",
    ],
    ids=["empty", "whitespace", "unfilled-template", "comment-only", "comments-in-sections", "zero-width"],
)
def test_pr001_empty(body: str):
    gaps = description_gaps(body)
    assert gaps is not None
    assert gaps in ([], ["Purpose", "Test Plan", "Test Result"])


@pytest.mark.parametrize(
    "body",
    [
        FILLED_BODY,
        _fill("Evict the unconfirmed tail.", "`pytest tests/v1/ft`", "12 passed"),
        _fill("故障重试时驱逐未确认的尾部 KV 块。", "运行 `pytest tests/v1/fault_tolerance`。", "全部通过（12 个）。"),
        "Fixes the dirty-KV bug after a failed step: see #1234.\n",
        "修复故障后前缀缓存命中脏 KV 的问题。\n",
        "**Purpose**\nEvict the tail.\n\n**Test Plan**\nunit test\n\n**Test Result**\npassed\n",
        _fill("### Root cause\nallocate_slots caches blocks at schedule time.", "unit test", "passed"),
    ],
    ids=[
        "filled",
        "filled-template",
        "chinese-template",
        "free-text",
        "chinese-free-text",
        "bold-headings",
        "subsection",
    ],
)
def test_pr001_filled(body: str):
    assert description_gaps(body) is None


def test_pr001_names_the_empty_sections():
    assert description_gaps(_fill(purpose="Evict the tail.")) == ["Test Plan", "Test Result"]
    assert description_gaps(_fill(purpose="目的：驱逐", plan="pytest")) == ["Test Result"]
    # A heading of its own is not text: "Test Plan" followed only by a sub-heading is empty.
    assert description_gaps(_fill("x", "### Commands", "ok")) == ["Test Plan"]


# -- the titles' actions --------------------------------------------------------------------------


def test_claimed_actions():
    names = lambda t: [a.name for a, _ in claimed_actions(t)]  # noqa: E731
    assert names("Evict and zero contaminated KV blocks on fault") == ["evict", "zero"]
    assert names("[Core] Zeroing of dirty blocks") == ["zero"]
    assert names("Fix non-zero exit code") == []
    assert names("故障恢复时驱逐并清零脏块") == ["preempt", "evict", "zero"]
    assert names("Drop stale output after resume") == ["stale-output", "preempt"]


def test_is_test_path():
    assert is_test_path("tests/v1/test_x.py")
    assert is_test_path("vllm/foo/test_bar.py")
    assert is_test_path("vllm/foo/bar_test.py")
    assert is_test_path("conftest.py")
    assert not is_test_path("vllm/v1/fault_tolerance/engine_core_sentinel.py")
    assert not is_test_path("vllm/testing_utils.py")


def test_pr_docs_shape():
    docs = pr_docs()
    assert list(docs) == ["PR001", "PR002", "PR003", "PR004", "PR005"]
    for code, doc in docs.items():
        assert doc.code == code and doc.name and doc.summary and doc.why_bad
        assert doc.url == ""  # no invented address; `docs-url` in [tool.ftlint] sets links
        assert doc.markdown().startswith(f"# {doc.name} ({code})")


# -- PR checks on a real repository ---------------------------------------------------------------


def _review(monkeypatch, capsys, repo: Repo, *args: str, body: str | None = None, title: str | None = None):
    extra = []
    if title is not None:
        extra += ["--title", title]
    if body is not None:
        body_file = repo.path.parent / "body.md"
        body_file.write_text(body, encoding="utf-8")
        extra += ["--body-file", str(body_file)]
    code, out, err = run_main(
        monkeypatch, capsys, repo.path, "review", "--base", repo.base, *SELECT, "--format", "json", *extra, *args
    )
    assert err == "", err
    return code, json.loads(out)


def _pr(findings: list[dict]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in findings:
        if f["path"] == "":
            assert f["line"] == 0
            out.setdefault(f["code"], []).append(f["message"])
    return out


def test_pr_checks_on_the_resume_pr(pr_repo: Repo, monkeypatch, capsys):
    code, findings = _review(
        monkeypatch, capsys, pr_repo, title="Evict and zero contaminated KV blocks on fault", body=TEMPLATE
    )
    assert code == 1
    pr = _pr(findings)
    assert sorted(pr) == ["PR001", "PR002", "PR003", "PR004", "PR005"]
    assert "Purpose, Test Plan and Test Result" in pr["PR001"][0]
    # PR002: evict_blocks() was added, record_blocks_for_zeroing() was not.
    assert len(pr["PR002"]) == 1 and "`zero`" in pr["PR002"][0] and "record_blocks_for_zeroing" in pr["PR002"][0]
    assert "EngineCoreSentinel.on_fault" in pr["PR003"][0]
    assert "EngineCoreSentinel._resume_running" in pr["PR003"][0]
    # PR004: the removed async_tokens_to_discard line is not about evicting or zeroing.
    assert len(pr["PR004"]) == 1 and "async_tokens_to_discard" in pr["PR004"][0]
    assert "line 14" in pr["PR004"][0]
    # File findings still come through.
    assert [f["code"] for f in findings if f["path"]] == ["FT001"]


def test_filled_description_with_tests_and_explanation_is_clean(pr_repo: Repo, monkeypatch, capsys):
    pr_repo.write(
        "vllm/v1/fault_tolerance/engine_core_sentinel.py",
        (pr_repo.path / SENTINEL)
        .read_text(encoding="utf-8")
        .replace(
            "manager.evict_blocks(",
            "manager.record_blocks_for_zeroing(request.request_id, confirmed)\n        manager.evict_blocks(",
        ),
    )
    pr_repo.write("tests/v1/test_resume.py", "def test_resume():\n    assert True\n")
    body = FILLED_BODY + "\nAlso removes the `async_tokens_to_discard` reset: in a fault that frame never arrives.\n"
    code, findings = _review(
        monkeypatch,
        capsys,
        pr_repo,
        "--ignore",
        "FT001",
        title="Evict and zero contaminated KV blocks on fault",
        body=body,
    )
    # FT001 is ignored and FT005 is not on a changed line: only the summary of what the change
    # left in the on_fault it edits (PR005) remains.
    assert code == 1 and [f["code"] for f in findings] == ["PR005"]


def test_zeroing_through_a_helper_in_an_unchanged_file_counts(repo: Repo, monkeypatch, capsys):
    repo.write("pkg/__init__.py", "")
    repo.write(
        "pkg/zeroing.py",
        "def zero_tail(manager, request, start):\n    manager.record_blocks_for_zeroing(request.request_id, start)\n",
    )
    repo.write("pkg/sentinel.py", "class S:\n    def on_fault(self, exc):\n        pass\n")
    repo.base = repo.commit("base")
    repo.write(
        "pkg/sentinel.py",
        "from pkg.zeroing import zero_tail\n\n\nclass S:\n    def on_fault(self, exc):\n"
        "        for r in self.scheduler.running:\n            zero_tail(self.manager, r, 0)\n"
        "            self.manager.evict_blocks(set())\n",
    )
    repo.write("tests/test_s.py", "def test_s():\n    pass\n")
    code, findings = _review(monkeypatch, capsys, repo, title="Evict and zero dirty blocks", body=FILLED_BODY)
    assert _pr(findings) == {}
    assert code == 0


def test_pr003_not_reported_when_a_test_changes(pr_repo: Repo, monkeypatch, capsys):
    pr_repo.write("tests/v1/fault_tolerance/test_resume.py", "def test_resume():\n    pass\n")
    _, findings = _review(monkeypatch, capsys, pr_repo, body=FILLED_BODY)
    assert "PR003" not in _pr(findings)


def test_pr003_not_reported_for_non_fault_path_changes(repo: Repo, monkeypatch, capsys):
    repo.write("pkg/util.py", "def helper():\n    return 1\n")
    repo.write("pkg/sentinel.py", "class S:\n    def on_fault(self, exc):\n        pass\n")
    repo.base = repo.commit("base")
    repo.write("pkg/util.py", "def helper():\n    return 2\n")
    code, findings = _review(monkeypatch, capsys, repo, title="Tweak helper", body=FILLED_BODY)
    assert _pr(findings) == {} and code == 0


def test_pr004_explained_by_the_description(pr_repo: Repo, monkeypatch, capsys):
    body = FILLED_BODY + "\n移除了 `async_tokens_to_discard` 这一行：故障时该输出帧不会到达。\n"
    _, findings = _review(monkeypatch, capsys, pr_repo, title="Evict contaminated KV blocks on fault", body=body)
    assert "PR004" not in _pr(findings)


def test_pr004_explained_by_the_title(pr_repo: Repo, monkeypatch, capsys):
    _, findings = _review(
        monkeypatch, capsys, pr_repo, title="Evict dirty blocks and stop discarding stale output", body=FILLED_BODY
    )
    assert "PR004" not in _pr(findings)


def test_pr004_moved_lines_are_not_removals(repo: Repo, monkeypatch, capsys):
    repo.write(
        "s.py",
        "class S:\n    def on_fault(self, exc):\n        self.scheduler.finish_requests(None, 3)\n"
        "        self.engine.flush_outputs()\n",
    )
    repo.base = repo.commit("base")
    repo.write(
        "s.py",
        "class S:\n    def on_fault(self, exc):\n        self._abort()\n\n    def _abort(self):\n"
        "        self.scheduler.finish_requests(None, 3)\n        self.engine.flush_outputs()\n",
    )
    _, findings = _review(monkeypatch, capsys, repo, title="Evict on fault", body=FILLED_BODY)
    assert "PR004" not in _pr(findings)


def test_pr004_changed_line(repo: Repo, monkeypatch, capsys):
    repo.write(
        "s.py",
        "class S:\n    def on_fault(self, exc):\n        for r in self.s.running:\n"
        "            self.s._preempt_request(r, 0.0)\n            r.num_in_flight_tokens = 0\n",
    )
    repo.base = repo.commit("base")
    repo.write(
        "s.py",
        "class S:\n    def on_fault(self, exc):\n        for r in self.s.running:\n"
        "            self.s._preempt_request(r, 0.0)\n            r.num_in_flight_tokens = 1\n"
        "            self.kv.evict_blocks(set())\n",
    )
    _, findings = _review(monkeypatch, capsys, repo, title="Evict on fault", body=FILLED_BODY)
    assert "line 5" in _pr(findings)["PR004"][0]


def test_pr004_not_in_fault_path(repo: Repo, monkeypatch, capsys):
    repo.write("s.py", "def pause(s):\n    s.async_tokens_to_discard = 1\n    return s\n")
    repo.base = repo.commit("base")
    repo.write("s.py", "def pause(s):\n    return s\n")
    _, findings = _review(monkeypatch, capsys, repo, title="Simplify pause", body=FILLED_BODY)
    assert _pr(findings) == {}


def test_pr_checks_need_title_or_body(pr_repo: Repo, monkeypatch, capsys):
    _, findings = _review(monkeypatch, capsys, pr_repo)
    assert sorted(_pr(findings)) == ["PR005"]  # needs neither
    _, findings = _review(monkeypatch, capsys, pr_repo, body=FILLED_BODY)
    assert sorted(_pr(findings)) == ["PR003", "PR005"]  # PR002/PR004 need --title


def test_pr_selection(pr_repo: Repo, monkeypatch, capsys):
    title = "Evict and zero contaminated KV blocks on fault"
    _, findings = _review(monkeypatch, capsys, pr_repo, "--ignore", "PR003,PR004,PR005", title=title, body=TEMPLATE)
    assert sorted(_pr(findings)) == ["PR001", "PR002"]
    code, out, _ = run_main(
        monkeypatch,
        capsys,
        pr_repo.path,
        "review",
        "--base",
        pr_repo.base,
        "--select",
        "PR001",
        "--title",
        title,
        "--format",
        "json",
        "--body-file",
        str(pr_repo.path.parent / "body.md"),
    )
    assert code == 1 and [f["code"] for f in json.loads(out)] == ["PR001"]


# -- untrusted text in the output -----------------------------------------------------------------

NASTY_TITLE = "Evict `blocks` | zero <script>alert(1)</script> **now** 清零"
NASTY_BODY = """\
## Purpose
修复 | 表格 | `code` <b>bold</b> ```fence``` [link](javascript:alert(1))

## Test Plan
`pytest -k "a|b"`

## Test Result
<img src=x onerror=alert(1)> 通过
"""


@pytest.mark.parametrize("fmt", ["markdown", "github-review", "text", "github", "rdjson", "json"])
def test_untrusted_title_and_body_do_not_break_output(pr_repo: Repo, fmt: str):
    body = pr_repo.path.parent / "nasty.md"
    body.write_text(NASTY_BODY, encoding="utf-8")
    # The PR also deletes a line holding backticks and a pipe.
    sentinel = pr_repo.path / SENTINEL
    sentinel.write_text(
        sentinel.read_text(encoding="utf-8").replace("        scheduler.reset_prefix_cache()\n", ""),
        encoding="utf-8",
    )
    proc = run_cli(
        pr_repo.path,
        "review",
        "--base",
        pr_repo.base,
        *SELECT,
        "--format",
        fmt,
        "--title",
        NASTY_TITLE,
        "--body-file",
        str(body),
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "<script>" not in proc.stdout
    if fmt in ("github-review", "rdjson", "json"):
        data = json.loads(proc.stdout)
        text = json.dumps(data, ensure_ascii=False)
        assert "PR002" in text
    if fmt == "markdown":
        assert "PR002" in proc.stdout and "reset_prefix_cache" in proc.stdout
    if fmt == "github-review":
        review = json.loads(proc.stdout)
        assert all(c["line"] > 0 for c in review["comments"])
        assert "PR004" in review["body"]


def test_non_ascii_body_from_stdin(pr_repo: Repo):
    proc = run_cli(
        pr_repo.path,
        "review",
        "--base",
        pr_repo.base,
        *SELECT,
        "--format",
        "json",
        "--title",
        "故障时驱逐脏块",
        "--body-file",
        "-",
        stdin="## Purpose\n驱逐未确认的尾部块。\n## Test Plan\n单元测试\n## Test Result\n通过\n"
        "另外删除了 async_tokens_to_discard。\n",
    )
    assert proc.returncode == 1, proc.stderr
    pr = _pr(json.loads(proc.stdout))
    assert "PR001" not in pr and "PR002" not in pr and "PR004" not in pr
    assert "PR003" in pr
