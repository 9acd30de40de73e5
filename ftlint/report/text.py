"""``text``: ruff-style ``path:line:col: CODE [*] message`` lines plus a summary."""

from __future__ import annotations

from collections.abc import Sequence

from ftlint.finding import Finding

from ._common import ReportContext, sorted_findings

FIX_COMMAND = "ftlint check --fix"


def format_location(finding: Finding) -> str:
    """``path:line:col: `` (1-based code-point column), ``path: `` or nothing (PR-level)."""
    if finding.path and finding.line > 0:
        return f"{finding.path}:{finding.line}:{max(finding.column, 1)}: "
    if finding.path:
        return f"{finding.path}: "
    return ""


def format_finding(finding: Finding, unsafe_fixes: bool = False) -> str:
    marker = " [*]" if finding.has_safe_fix or (finding.fix and unsafe_fixes) else ""
    message = (
        finding.message.replace("\r\n", "\n")
        .replace("\r", "\n")
        .replace("\n", "\n    ")
    )
    return f"{format_location(finding)}{finding.code}{marker} {message}"


def render_text(findings: Sequence[Finding], ctx: ReportContext) -> str:
    items = sorted_findings(findings)
    if not items:
        return "All checks passed!\n"
    lines = [format_finding(f, ctx.unsafe_fixes) for f in items]
    n = len(items)
    lines.append(f"Found {n} error{'' if n == 1 else 's'}.")
    fixable = sum(1 for f in items if f.has_safe_fix or (f.fix and ctx.unsafe_fixes))
    hidden = sum(1 for f in items if f.fix and not f.has_safe_fix and not ctx.unsafe_fixes)
    command = FIX_COMMAND + (" --unsafe-fixes" if ctx.unsafe_fixes else "")
    hint = f"{hidden} hidden fix{'' if hidden == 1 else 'es'} can be enabled with the `--unsafe-fixes` option"
    if fixable:
        lines.append(f"[*] {fixable} fixable with `{command}`" + (f" ({hint})." if hidden else "."))
    elif hidden:
        lines.append(f"No fixes available ({hint}).")
    return "\n".join(lines) + "\n"
