"""``github``: GitHub Actions workflow commands (``::error ...::``), one per finding.

Escaping follows ``@actions/core`` (``command.ts``): in the message (data) ``%`` -> ``%25``,
CR -> ``%0D``, LF -> ``%0A``; in property values additionally ``:`` -> ``%3A`` and
``,`` -> ``%2C``.  ``file=`` is the repo-relative path when ``ctx.root`` is known.
``col``/``endColumn`` are sent only when the finding starts and ends on one line: GitHub's
annotation docs and ``@actions/core`` say columns must be omitted when ``line`` and
``endLine`` differ.
"""

from __future__ import annotations

from collections.abc import Sequence

from ftlint.core.finding import Finding, Severity

from ._common import (
    TOOL_NAME,
    ReportContext,
    display_path,
    finding_span,
    sorted_findings,
)
from .text import format_location

COMMANDS = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "notice",
}


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def format_command(command: str, properties: dict[str, object], message: str) -> str:
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items() if value is not None)
    return f"::{command}{' ' + props if props else ''}::{escape_data(message)}"


def annotation(finding: Finding, ctx: ReportContext) -> str:
    props: dict[str, object] = {"title": f"{TOOL_NAME} ({finding.code})"}
    if finding.path:
        props["file"] = display_path(finding.path, ctx)
        if finding.line > 0:
            # GitHub's columns are 1-based characters; Finding's code-point columns are used as-is.
            line, col, end_line, end_col = finding_span(finding, "code-points")
            if end_line == line:
                props.update(line=line, col=col, endLine=end_line, endColumn=end_col)
            else:  # GitHub: columns only when the annotation starts and ends on one line
                props.update(line=line, endLine=end_line)
    message = f"{format_location(finding)}{finding.code} {finding.message}"
    return format_command(COMMANDS[finding.severity], props, message)


def render_github(findings: Sequence[Finding], ctx: ReportContext) -> str:
    return "".join(annotation(f, ctx) + "\n" for f in sorted_findings(findings))
