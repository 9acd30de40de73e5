"""``github-review``: the JSON payload for GitHub's "Create a review for a pull request".

``POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews`` with
``{"body", "event": "COMMENT", "comments": [{"path", "line", "side": "RIGHT", "body"}]}``.

* A finding becomes an inline comment only when its line is an added/modified line of the
  diff (``ctx.diff_lines[repo-relative path]``); GitHub rejects comments elsewhere, so the
  other findings go into the review body under "Outside the diff".  With
  ``ctx.diff_lines is None`` (diff unknown) every finding with a file line is a comment.
* PR-level findings (no path, or line 0) always go into the body.
* Comment paths are repo-relative POSIX paths (relative to ``ctx.root``).
* When the fix rewrites whole lines starting at the finding's line and those lines are
  known, the comment carries a ```` ```suggestion ```` block (a multi-line one adds
  ``start_line``/``start_side`` and anchors ``line`` at the last replaced line, which must
  also be in the diff); otherwise the fix is shown as a ```` ```diff ````.
* The body always starts with the one-line verdict, so it is never empty (GitHub requires
  a body for ``event: COMMENT``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ftlint.finding import Finding

from ._common import (
    ReportContext,
    apply_fix,
    display_path,
    is_pr_level,
    plural,
    repo_relative,
)
from .markdown import finding_body, finding_section, heading_text, ordered, verdict


def _comment_path(finding: Finding, ctx: ReportContext) -> str:
    rel = repo_relative(finding.path, ctx)
    return rel if rel is not None else display_path(finding.path, ctx)


def _in_diff(path: str, line: int, ctx: ReportContext) -> bool:
    if ctx.diff_lines is None:
        return True
    return line in ctx.diff_lines.get(path, frozenset())


def build_comment(finding: Finding, ctx: ReportContext) -> dict[str, Any]:
    path = _comment_path(finding, ctx)
    comment: dict[str, Any] = {"path": path, "line": finding.line, "side": "RIGHT"}
    suggestion = None
    applied = apply_fix(finding)
    if applied is not None and applied.first == finding.line:
        if applied.last == applied.first:
            suggestion = applied
        elif all(
            _in_diff(path, n, ctx) for n in range(applied.first, applied.last + 1)
        ):
            suggestion = applied
            comment = {
                "path": path,
                "start_line": applied.first,
                "start_side": "RIGHT",
                "line": applied.last,
                "side": "RIGHT",
            }
    body = f"**{heading_text(finding, ctx)}**\n\n" + finding_body(
        finding, ctx, with_location=False, suggestion=suggestion
    )
    comment["body"] = body
    return comment


def build_review(findings: Sequence[Finding], ctx: ReportContext) -> dict[str, Any]:
    comments: list[dict[str, Any]] = []
    pr_level: list[Finding] = []
    outside: list[Finding] = []
    for f in ordered(findings):
        if is_pr_level(f):
            pr_level.append(f)
        elif _in_diff(_comment_path(f, ctx), f.line, ctx):
            comments.append(build_comment(f, ctx))
        else:
            outside.append(f)

    parts = [verdict(findings, ctx)]
    if comments:
        parts.append(
            f"{plural(len(comments), 'problem')} on changed lines {'is' if len(comments) == 1 else 'are'} commented inline."
        )
    if pr_level:
        parts.append("### Pull request")
        parts += [finding_section(f, ctx, level=4) for f in pr_level]
    if outside:
        parts.append("### Outside the diff")
        parts.append(
            "These lines are not changed by this pull request, so they cannot carry inline comments."
        )
        parts += [finding_section(f, ctx, level=4) for f in outside]
    return {"body": "\n\n".join(parts) + "\n", "event": "COMMENT", "comments": comments}


def render_github_review(findings: Sequence[Finding], ctx: ReportContext) -> str:
    return json.dumps(build_review(findings, ctx), indent=2, ensure_ascii=False) + "\n"
