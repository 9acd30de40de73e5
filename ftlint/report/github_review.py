"""``github-review``: the JSON payload for GitHub's "Create a review for a pull request".

``POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews`` with
``{"body", "event": "COMMENT", "comments": [{"path", "line", "side": "RIGHT", "body"}]}``.

* A finding becomes an inline comment only when a line of its span is an added/modified
  line of the diff (``ctx.diff_lines[repo-relative path]``); GitHub rejects comments elsewhere, so the
  other findings go into the review body under "Outside the diff".  With
  ``ctx.diff_lines is None`` (diff unknown) every finding with a file line is a comment.
* PR-level findings (no path, or line 0) always go into the body.
* Comment paths are repo-relative POSIX paths (relative to ``ctx.root``).
* A comment covers the finding's lines: ``line`` alone for one line, ``start_line`` /
  ``start_side`` and ``line`` / ``side`` (all ``RIGHT``) for several.
* A fix becomes a ```` ```suggestion ```` block over exactly the lines it replaces (the
  comment then covers those lines, which GitHub replaces when the suggestion is applied);
  an insertion replaces its anchor line with that line plus the new ones.  When a replaced
  line is outside the diff, GitHub cannot take the suggestion: the comment stays on the
  finding's lines and shows the fix as a ```` ```diff ````.
* The body always starts with the one-line verdict, so it is never empty (GitHub requires
  a body for ``event: COMMENT``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ftlint.core.finding import Finding

from ._common import (
    ReportContext,
    apply_fix,
    escape_path,
    is_pr_level,
    plural,
    repo_relative,
)
from .markdown import finding_body, finding_section, heading_text, ordered, verdict


def _comment_path(finding: Finding, ctx: ReportContext) -> str:
    rel = repo_relative(finding.path, ctx)
    return rel if rel is not None else finding.path.replace("\\", "/")


def _in_diff(path: str, line: int, ctx: ReportContext) -> bool:
    if ctx.diff_lines is None:
        return True
    return line in ctx.diff_lines.get(path, frozenset())


def _span(finding: Finding) -> range:
    return range(finding.line, max(finding.end_line, finding.line) + 1)


def _anchor(path: str, lines: range, ctx: ReportContext) -> dict[str, Any] | None:
    """``line`` (and ``start_line`` for several lines) on the RIGHT side; None when a line
    of ``lines`` is outside the diff (GitHub rejects such a comment)."""
    if not all(_in_diff(path, n, ctx) for n in lines):
        return None
    if len(lines) == 1:
        return {"path": path, "line": lines[0], "side": "RIGHT"}
    return {"path": path, "start_line": lines[0], "start_side": "RIGHT", "line": lines[-1], "side": "RIGHT"}


def build_comment(finding: Finding, ctx: ReportContext) -> dict[str, Any]:
    """An inline comment on the finding's lines, or on exactly the lines its fix replaces
    when the fix can be shown as a ```` ```suggestion ```` block (GitHub applies a
    suggestion to the commented lines)."""
    path = _comment_path(finding, ctx)
    suggestion = None
    comment = None
    applied = apply_fix(finding)
    if applied is not None:
        comment = _anchor(path, range(applied.first, applied.last + 1), ctx)
        if comment is not None:
            suggestion = applied
    if comment is None:
        comment = _anchor(path, _span(finding), ctx)
    if comment is None:  # the span is partly outside the diff: its first line inside it
        line = next(n for n in _span(finding) if _in_diff(path, n, ctx))
        comment = {"path": path, "line": line, "side": "RIGHT"}
    body = f"**{heading_text(finding, ctx)}**\n\n" + finding_body(
        finding, ctx, with_location=False, suggestion=suggestion
    )
    comment["path"] = escape_path(path, controls=False)  # looked up raw, shown escaped
    comment["body"] = body
    return comment


def build_review(findings: Sequence[Finding], ctx: ReportContext) -> dict[str, Any]:
    comments: list[dict[str, Any]] = []
    pr_level: list[Finding] = []
    outside: list[Finding] = []
    for f in ordered(findings):
        if is_pr_level(f):
            pr_level.append(f)
        elif any(_in_diff(_comment_path(f, ctx), n, ctx) for n in _span(f)):
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
        parts.append("These lines are not changed by this pull request, so they cannot carry inline comments.")
        parts += [finding_section(f, ctx, level=4) for f in outside]
    return {"body": "\n\n".join(parts) + "\n", "event": "COMMENT", "comments": comments}


def render_github_review(findings: Sequence[Finding], ctx: ReportContext) -> str:
    return json.dumps(build_review(findings, ctx), indent=2, ensure_ascii=False) + "\n"
