"""github-review: payload shape for POST /repos/{o}/{r}/pulls/{n}/reviews."""

from __future__ import annotations

import json

import jsonschema
from report_fixtures import NON_ASCII_LINE, ft001, ft002, make_ctx, pr001

from ftlint.finding import Edit
from ftlint.report import render

# The subset of GitHub's request body that ftlint uses.
REVIEW_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "additionalProperties": False,
    "required": ["body", "event", "comments"],
    "properties": {
        "body": {"type": "string", "minLength": 1},
        "event": {"enum": ["COMMENT"]},
        "comments": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["path", "line", "side", "body"],
                "properties": {
                    "path": {"type": "string", "minLength": 1, "pattern": "^[^/\\\\]"},
                    "line": {"type": "integer", "minimum": 1},
                    "side": {"enum": ["RIGHT"]},
                    "start_line": {"type": "integer", "minimum": 1},
                    "start_side": {"enum": ["RIGHT"]},
                    "body": {"type": "string", "minLength": 1},
                },
            },
        },
    },
}


def review(findings, ctx):
    data = json.loads(render("github-review", findings, ctx))
    jsonschema.Draft7Validator(REVIEW_SCHEMA).validate(data)
    return data


def test_only_in_diff_lines_become_comments(findings):
    ctx = make_ctx(
        diff_lines={
            "vllm/v1/worker.py": frozenset({11, 12, 13}),
            "vllm/v1/core/block_pool.py": frozenset({1, 2}),
        }
    )
    data = review(findings, ctx)
    assert data["event"] == "COMMENT"
    assert [(c["path"], c["line"], c["side"]) for c in data["comments"]] == [
        ("vllm/v1/worker.py", 12, "RIGHT")
    ]
    body = data["body"]
    assert (
        body.splitlines()[0]
        == "ftlint found 3 problems in 2 files and the pull request"
    )
    # PR-level finding and the out-of-diff FT002 are in the body, in that order
    assert (
        body.index("### Pull request")
        < body.index("PR001")
        < body.index("### Outside the diff")
        < body.index("FT002")
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
    data = review(
        [ft001()], make_ctx(diff_lines={"vllm/v1/worker.py": frozenset({12})})
    )
    (comment,) = data["comments"]
    assert set(comment) == {"path", "line", "side", "body"}
    body = comment["body"]
    assert body.startswith(
        "**[FT001](https://ftlint.example/rules/FT001): stale-output-discard**"
    )
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
    data = review(
        [f], make_ctx(diff_lines={"vllm/v1/core/block_pool.py": frozenset({10, 11})})
    )
    (c,) = data["comments"]
    assert (c["start_line"], c["start_side"], c["line"], c["side"]) == (
        10,
        "RIGHT",
        11,
        "RIGHT",
    )
    assert "```suggestion\n    foo(drop=False)\n```" in c["body"]
    # second line outside the diff: single-line comment, fix shown as a diff instead
    data = review(
        [f], make_ctx(diff_lines={"vllm/v1/core/block_pool.py": frozenset({10})})
    )
    (c,) = data["comments"]
    assert "start_line" not in c and c["line"] == 10
    assert "```diff" in c["body"] and "```suggestion" not in c["body"]


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
