"""``markdown``: a review body a human would write.

Layout: a one-line verdict ("ftlint found 3 problems in 2 files" / "ftlint: no problems
found"), then one section per finding -- PR-level findings (no file line) first, then the
others in ``Finding.sort_key`` order.  A section has a heading with the code (linked to
the rule page when the doc has a URL) and rule name, the location ``path:line``, the
message, the doc's "Why is this bad?" text, and the suggested fix: its title and, when
the fix's edits can be applied to the lines the finding carries, a ```` ```diff ````
block (a ```` ```suggestion ```` block in github-review inline comments).

Finding messages and fix titles are untrusted text: they go through
:func:`ftlint.report._common.md_inline` (code spans kept, ``| * _ [ ]`` and stray
backticks escaped, ``< > &`` as entities, block markers at line start neutralised).  Paths
are shown in code spans sized to their backticks.  Rule docs are ftlint's own Markdown
and are included as written.  Non-ASCII text passes through unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

from ftlint.core.finding import Finding

from ._common import (
    AppliedFix,
    ReportContext,
    apply_fix,
    code_block,
    code_span,
    display_path,
    escape_path,
    is_pr_level,
    md_inline,
    plural,
    sorted_findings,
)


def verdict(findings: Sequence[Finding], ctx: ReportContext) -> str:
    n = len(findings)
    if n == 0:
        return f"{ctx.title}: no problems found"
    files = len({display_path(f.path, ctx) for f in findings if f.path})
    project = sum(1 for f in findings if not f.path)
    where = []
    if files:
        where.append(plural(files, "file"))
    if project:
        where.append("the pull request")
    return f"{ctx.title} found {plural(n, 'problem')} in {' and '.join(where)}"


def ordered(findings: Sequence[Finding]) -> list[Finding]:
    """PR-level findings first, then file findings; each group by ``sort_key``."""
    items = sorted_findings(findings)
    return [f for f in items if is_pr_level(f)] + [f for f in items if not is_pr_level(f)]


def heading_text(finding: Finding, ctx: ReportContext) -> str:
    doc = ctx.docs.get(finding.code)
    name = (doc.name if doc else "") or finding.name
    code = finding.code
    if doc is not None and doc.url:
        code = f"[{code}]({doc.url.replace(')', '%29').replace(' ', '%20')})"
    return f"{code}: {md_inline(name)}" if name else code


def rule_pointer(code: str) -> str:
    """Where to read a rule's page when no ``docs-url`` gives it an address."""
    return f"The rule's page: {code_span(f'ftlint rule {code}')}."


def location_text(finding: Finding, ctx: ReportContext) -> str:
    if not finding.path:
        return "the pull request"
    path = escape_path(display_path(finding.path, ctx))
    return code_span(f"{path}:{finding.line}" if finding.line > 0 else path)


def diff_block(applied: AppliedFix) -> str:
    """A unified diff of the fix; when old lines are unknown, the new lines and where they go."""
    old, new = applied.old_lines, applied.new_lines
    if not applied.old_known:
        span = f"line {applied.first}" if applied.first == applied.last else f"lines {applied.first}-{applied.last}"
        what = "with:" if new else "(delete them)"
        block = code_block("\n".join(new), "python") if new else ""
        return f"Replace {span} {what}" + (f"\n\n{block}" if block else "")
    lines = [f"@@ -{applied.first},{len(old)} +{applied.first},{len(new)} @@"]
    lines += [f"-{line}" for line in old] + [f"+{line}" for line in new]
    return code_block("\n".join(lines), "diff")


def suggestion_block(applied: AppliedFix) -> str:
    return code_block("\n".join(applied.new_lines) + ("\n" if applied.new_lines else ""), "suggestion")


def edit_list(finding: Finding) -> str:
    """Fallback when the edits cannot be applied to the known lines: describe them."""
    items = []
    for e in finding.fix:
        where = f"{e.line}:{e.column}-{e.end_line}:{e.end_column}"
        action = f"replace with {code_span(e.text)}" if e.text else "delete"
        items.append(f"- {where}: {action}")
    return "\n".join(items)


def fix_text(finding: Finding, suggestion: AppliedFix | None = None) -> str:
    """The "Suggested fix" paragraph and block ('' when the finding has no fix)."""
    if not finding.fix and not finding.fix_title:
        return ""
    parts = ["**Suggested fix:**" + (f" {md_inline(finding.fix_title)}" if finding.fix_title else "")]
    if finding.fix:
        if suggestion is not None:
            parts.append(suggestion_block(suggestion))
        else:
            applied = apply_fix(finding)
            parts.append(diff_block(applied) if applied is not None else edit_list(finding))
    return "\n\n".join(parts)


def finding_body(
    finding: Finding,
    ctx: ReportContext,
    *,
    with_location: bool = True,
    suggestion: AppliedFix | None = None,
) -> str:
    """Everything below the heading: location, message, why, fix."""
    parts = []
    if with_location:
        parts.append(f"**Location:** {location_text(finding, ctx)}")
    parts.append(md_inline(finding.message))
    doc = ctx.docs.get(finding.code)
    if doc is not None and doc.why_bad.strip():
        parts.append(f"**Why is this bad?**\n{doc.why_bad.strip()}")
    if doc is not None and not doc.url:
        parts.append(rule_pointer(finding.code))
    fix = fix_text(finding, suggestion)
    if fix:
        parts.append(fix)
    return "\n\n".join(parts)


def finding_section(finding: Finding, ctx: ReportContext, level: int = 3) -> str:
    return f"{'#' * level} {heading_text(finding, ctx)}\n\n{finding_body(finding, ctx)}"


def render_markdown(findings: Sequence[Finding], ctx: ReportContext) -> str:
    parts = [verdict(findings, ctx)]
    parts += [finding_section(f, ctx) for f in ordered(findings)]
    return "\n\n".join(parts) + "\n"
