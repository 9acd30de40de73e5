"""``text``: ruff-style ``path:line:col: CODE [*] message`` lines plus a summary.

With ``ctx.color`` (a terminal) the path is bold, the code bold red and ``[*]`` cyan, as ruff
colours them; the plain text is the same without the ANSI sequences."""

from __future__ import annotations

from collections.abc import Sequence

from ftlint.core.finding import Finding

from ._common import ReportContext, escape_path, sorted_findings

FIX_COMMAND = "ftlint check --fix"

BOLD, RED, CYAN, RESET = "\x1b[1m", "\x1b[31m", "\x1b[36m", "\x1b[0m"


def paint(text: str, style: str, color: bool) -> str:
    return f"{style}{text}{RESET}" if color and text else text


def format_location(finding: Finding, color: bool = False) -> str:
    """``path:line:col: `` (1-based code-point column), ``path: `` or nothing (PR-level)."""
    path = paint(escape_path(finding.path), BOLD, color)  # one line per finding, whatever the file is called
    sep = paint(":", CYAN, color)
    if finding.path and finding.line > 0:
        return f"{path}{sep}{finding.line}{sep}{max(finding.column, 1)}{sep} "
    if finding.path:
        return f"{path}{sep} "
    return ""


def format_finding(finding: Finding, color: bool = False, unsafe_fixes: bool = False) -> str:
    fixable = finding.has_safe_fix or (bool(finding.fix) and unsafe_fixes)
    marker = " " + paint("[*]", CYAN, color) if fixable else ""
    message = finding.message.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\n    ")
    code = paint(finding.code, BOLD + RED, color)
    return f"{format_location(finding, color)}{code}{marker} {message}"


def summary(items: Sequence[Finding], color: bool = False, unsafe_fixes: bool = False) -> list[str]:
    """ "Found N errors." and ruff's fix hints: how many are fixable, how many unsafe fixes
    ``--unsafe-fixes`` would add."""
    n = len(items)
    lines = [f"Found {n} error{'' if n == 1 else 's'}."]
    fixable = sum(1 for f in items if f.has_safe_fix or (f.fix and unsafe_fixes))
    hidden = sum(1 for f in items if f.fix and not f.has_safe_fix and not unsafe_fixes)
    command = FIX_COMMAND + (" --unsafe-fixes" if unsafe_fixes else "")
    hint = f"{hidden} hidden fix{'' if hidden == 1 else 'es'} can be enabled with the `--unsafe-fixes` option"
    if fixable:
        lines.append(
            f"{paint('[*]', CYAN, color)} {fixable} fixable with `{command}`" + (f" ({hint})." if hidden else ".")
        )
    elif hidden:
        lines.append(f"No fixes available ({hint}).")
    return lines


def render_text(findings: Sequence[Finding], ctx: ReportContext) -> str:
    items = sorted_findings(findings)
    if not items:
        return "All checks passed!\n"
    lines = [format_finding(f, ctx.color, ctx.unsafe_fixes) for f in items]
    lines += summary(items, ctx.color, ctx.unsafe_fixes)
    return "\n".join(lines) + "\n"
