"""github-review: the request body of POST /repos/{o}/{r}/pulls/{n}/reviews, validated against
the request schema in GitHub's REST description (``@octokit/openapi``, see official_schemas.py)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from ftlint.core.finding import Edit
from ftlint.report import render
from tests.helpers import EXAMPLE, GIT_IDENTITY, NON_ASCII_LINE, ft001, ft002, git, make_ctx, pr001, run_ftlint
from tests.report.official_schemas import review_request_schema, review_request_validator


def review(findings, ctx):
    data = json.loads(render("github-review", findings, ctx))
    review_request_validator().validate(data)
    # What GitHub's description says in prose: a body for event COMMENT, RIGHT-side lines.
    assert data["event"] == "COMMENT" and data["body"]
    for c in data["comments"]:
        assert c["side"] == "RIGHT" and c["line"] >= 1 and not c["path"].startswith("/")
        if "start_line" in c:
            assert c["start_side"] == "RIGHT" and c["start_line"] < c["line"]
    return data


def test_official_schema_is_the_create_review_request():
    schema = review_request_schema()
    item = schema["properties"]["comments"]["items"]
    assert {"path", "body", "line", "side", "start_line", "start_side"} <= set(item["properties"])
    assert schema["properties"]["event"]["enum"] == ["APPROVE", "REQUEST_CHANGES", "COMMENT"]
    with pytest.raises(jsonschema.ValidationError):
        review_request_validator().validate({"event": "COMMENT", "comments": [{"path": "a.py", "line": "1"}]})


def test_only_in_diff_lines_become_comments(findings):
    ctx = make_ctx(
        diff_lines={
            "vllm/v1/worker.py": frozenset({11, 12, 13}),
            "vllm/v1/core/block_pool.py": frozenset({1, 2}),
        }
    )
    data = review(findings, ctx)
    assert data["event"] == "COMMENT"
    assert [(c["path"], c["line"], c["side"]) for c in data["comments"]] == [("vllm/v1/worker.py", 12, "RIGHT")]
    body = data["body"]
    assert body.splitlines()[0] == "ftlint found 3 problems in 2 files and the pull request"
    # PR-level finding and the out-of-diff FT002 are in the body, in that order
    assert (
        body.index("### Pull request") < body.index("PR001") < body.index("### Outside the diff") < body.index("FT002")
    )
    assert "`vllm/v1/core/block_pool.py:40`" in body
    assert "FT001" not in body


def test_unknown_diff_comments_on_every_line_finding(findings):
    data = review(findings, make_ctx(diff_lines=None))
    assert sorted((c["path"], c["line"]) for c in data["comments"]) == [
        ("vllm/v1/core/block_pool.py", 40),
        ("vllm/v1/worker.py", 12),
    ]
    assert "PR001" in data["body"] and "### Outside the diff" not in data["body"]


def test_file_missing_from_diff_goes_to_body():
    data = review([ft002()], make_ctx(diff_lines={}))
    assert data["comments"] == []
    assert "FT002" in data["body"]


def test_pr_level_and_file_level_go_to_body():
    file_level = ft002(line=0, column=0, end_line=0, end_column=0)
    data = review([pr001(), file_level], make_ctx(diff_lines=None))
    assert data["comments"] == []
    assert "PR001" in data["body"] and "FT002" in data["body"]


def test_comment_body_has_suggestion():
    data = review([ft001()], make_ctx(diff_lines={"vllm/v1/worker.py": frozenset({12})}))
    (comment,) = data["comments"]
    assert set(comment) == {"path", "line", "side", "body"}
    body = comment["body"]
    assert body.startswith("**[FT001](https://ftlint.example/rules/FT001): stale-output-discard**")
    assert "**Why is this bad?**" in body
    assert "```suggestion\n" + NON_ASCII_LINE.replace("True", "False") + "\n```" in body


def test_multi_line_suggestion_uses_start_line():
    first, second = "    foo(", "        drop=True)"
    f = ft002(
        line=10,
        column=5,
        end_line=11,
        end_column=len(second) + 1,
        line_text=first,
        end_line_text=second,
        fix=(Edit(10, 5, 11, len(second) + 1, "foo(drop=False)"),),
    )
    data = review([f], make_ctx(diff_lines={"vllm/v1/core/block_pool.py": frozenset({10, 11})}))
    (c,) = data["comments"]
    assert (c["start_line"], c["start_side"], c["line"], c["side"]) == (
        10,
        "RIGHT",
        11,
        "RIGHT",
    )
    assert "```suggestion\n    foo(drop=False)\n```" in c["body"]
    # second line outside the diff: single-line comment, fix shown as a diff instead
    data = review([f], make_ctx(diff_lines={"vllm/v1/core/block_pool.py": frozenset({10})}))
    (c,) = data["comments"]
    assert "start_line" not in c and c["line"] == 10
    assert "```diff" in c["body"] and "```suggestion" not in c["body"]


def test_multi_line_finding_without_fix_spans_its_lines():
    f = ft002(line=40, end_line=42, end_line_text="        )", end_column=10)
    data = review([f], make_ctx(diff_lines=None))
    (c,) = data["comments"]
    assert (c["start_line"], c["line"]) == (40, 42) and "```" not in c["body"]
    # only its last line changed: still commented (a line of its span is in the diff), on that line
    data = review([f], make_ctx(diff_lines={"vllm/v1/core/block_pool.py": frozenset({42})}))
    (c,) = data["comments"]
    assert "start_line" not in c and c["line"] == 42


def test_whole_line_fix_over_lines_the_finding_does_not_carry():
    """ftlint's fixes replace whole lines (column 1 to column 1); the lines in between need
    not be known for the suggestion, which holds the new lines only."""
    f = ft002(line=40, fix=(Edit(40, 1, 44, 1, "        evict(\n            ids,\n        )\n"),))
    (c,) = review([f], make_ctx(diff_lines=None))["comments"]
    assert (c["start_line"], c["line"]) == (40, 43)
    assert "```suggestion\n        evict(\n            ids,\n        )\n```" in c["body"]


def test_insertion_replaces_its_anchor_line_with_itself_plus_the_new_lines():
    text = "        self.scheduler._preempt_request(req, 0.0)  # resume later"
    resets = "        req.num_in_flight_tokens = 0\n        req.num_stale_output_tokens = 0\n"
    f = ft002(
        line=5, line_text=text, end_line_text=text, column=9, end_column=len(text) + 1, fix=(Edit(6, 1, 6, 1, resets),)
    )
    (c,) = review([f], make_ctx(diff_lines={"vllm/v1/core/block_pool.py": frozenset({5})}))["comments"]
    assert "start_line" not in c and c["line"] == 5
    assert c["body"].count("```suggestion\n" + text + "\n" + resets + "```") == 1


def test_every_fix_of_the_bundled_example_is_a_suggestion():
    """The real fixes of ftlint/examples/bad_fault_handler.py (FT001: a two-line rewrite and a
    deletion) become suggestions that, applied as GitHub applies them, give the --fix result."""
    from ftlint.core.config import Config
    from ftlint.lint.engine import lint_paths
    from ftlint.lint.registry import known_codes
    from ftlint.syntax.textedits import apply_edits

    example = EXAMPLE
    config = Config(root=example.parent)
    result = lint_paths([example], config, frozenset(known_codes()), cache_dir=None)
    fixable = [f for f in result.findings if f.fix]
    assert [(f.code, f.line) for f in fixable] == [("FT001", 29), ("FT001", 30)]
    source = example.read_text(encoding="utf-8").splitlines()
    for f in fixable:
        data = review([f], make_ctx(root=example.parent, cwd=example.parent, diff_lines=None))
        (c,) = data["comments"]
        block = c["body"].split("```suggestion\n", 1)[1].split("```", 1)[0]
        first = c.get("start_line", c["line"])
        applied = source[: first - 1] + block.splitlines() + source[c["line"] :]
        expected, _ = apply_edits("\n".join(source) + "\n", [f.fix])
        assert "\n".join(applied) + "\n" == expected


def test_line_deletion_suggestion_is_empty_block():
    f = ft002(fix=(Edit(40, 1, 41, 1, ""),))
    data = review([f], make_ctx(diff_lines=None))
    assert "```suggestion\n```" in data["comments"][0]["body"]


def test_paths_are_repo_relative():
    from pathlib import Path

    ctx = make_ctx(
        root=Path("/repo"),
        cwd=Path("/repo/vllm"),
        diff_lines={"vllm/v1/x.py": frozenset({40})},
    )
    data = review([ft002(path="v1/x.py")], ctx)
    assert data["comments"][0]["path"] == "vllm/v1/x.py"


def test_no_findings_has_non_empty_body():
    data = review([], make_ctx())
    assert data == {
        "body": "ftlint: no problems found\n",
        "event": "COMMENT",
        "comments": [],
    }


def test_ftlint_review_payload_end_to_end(tmp_path):
    """`ftlint review --format github-review` on a git-built pull request: the payload passes
    GitHub's request schema and each fix on changed lines is a suggestion over its lines."""
    example = EXAMPLE.read_text()
    git("init", "-q", cwd=tmp_path)
    (tmp_path / "sentinel.py").write_text("x = 1\n")
    git("add", ".", cwd=tmp_path)
    git("commit", "-qm", "base", cwd=tmp_path)
    (tmp_path / "sentinel.py").write_text(example)
    proc = run_ftlint("review", "--base", "HEAD", "--format", "github-review", cwd=tmp_path, env=GIT_IDENTITY)
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    review_request_validator().validate(data)
    suggestions = [c for c in data["comments"] if "```suggestion" in c["body"]]
    assert [(c.get("start_line"), c["line"]) for c in suggestions] == [(None, 29), (None, 30)]
    lines = example.splitlines()
    assert "```suggestion\n" + lines[28].replace(", drop_stale_output=True", "") in suggestions[0]["body"]
    assert suggestions[1]["body"].count("```suggestion\n```") == 1  # line 30 deleted
