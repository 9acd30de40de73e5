"""``text``: ruff-style ``path:line:col: CODE [*] message`` lines plus a summary."""

from __future__ import annotations

from collections.abc import Sequence

from ftlint.finding import Finding

from ._common import ReportContext, escape_path, sorted_findings

FIX_COMMAND = "ftlint check --fix"


def format_location(finding: Finding) -> str:
    """``path:line:col: `` (1-based code-point column), ``path: `` or nothing (PR-level)."""
    path = escape_path(finding.path)  # one line per finding, whatever the file is called
    if finding.path and finding.line > 0:
        return f"{path}:{finding.line}:{max(finding.column, 1)}: "
    if finding.path:
        return f"{path}: "
    return ""


def format_finding(finding: Finding) -> str:
    marker = " [*]" if finding.fix else ""
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
    lines = [format_finding(f) for f in items]
    n = len(items)
    lines.append(f"Found {n} error{'' if n == 1 else 's'}.")
    fixable = sum(1 for f in items if f.fix)
    if fixable:
        lines.append(f"[*] {fixable} fixable with `{FIX_COMMAND}`.")
    return "\n".join(lines) + "\n"
