"""``rdjson`` / ``rdjsonl``: reviewdog's Diagnostic Format (``proto/rdf/reviewdog.proto``).

* ``rdjson``: one ``DiagnosticResult`` ``{source, severity, diagnostics[]}``;
  ``rdjsonl``: one ``Diagnostic`` per line.
* Lines are 1-based; columns are 1-based and counted in **UTF-8 bytes**; ``end`` is
  exclusive.  Finding columns (code points) are converted with the finding's own
  ``line_text`` / ``end_line_text``: ``byte_col = len(line[:col - 1].encode()) + 1``.
  If a column lies beyond the known text (text missing), the excess counts one byte per
  character (exact for ASCII).
* ``suggestions`` come from ``Finding.fix``.  Only the finding's start and end lines travel
  with it, so an edit position converts exactly when its line is one of those (and the
  column lies within the text) or when its column is 1 (column 1 is byte 1 on any line).
  Because a fix's edits apply together, if any edit cannot be converted exactly the
  finding gets **no** suggestions at all rather than a partial or misplaced one.
* ``location.path`` is ``Finding.path`` as given (relative to the working directory,
  where reviewdog runs too).  A PR-level finding without a line has a location without a
  range; one without a path has ``path: ""``.
* ``DiagnosticResult.severity`` is the most severe level present (``UNKNOWN_SEVERITY``
  when there are no findings).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ftlint.core.finding import Finding, Severity

from ._common import (
    TOOL_NAME,
    ReportContext,
    convert_edit,
    escape_path,
    finding_span,
    known_lines,
    sorted_findings,
)

SEVERITIES = {
    Severity.ERROR: "ERROR",
    Severity.WARNING: "WARNING",
    Severity.INFO: "INFO",
}
_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
UNIT = "utf-8"


def _source(ctx: ReportContext) -> dict[str, str]:
    src = {"name": TOOL_NAME}
    if ctx.information_uri:
        src["url"] = ctx.information_uri
    return src


def _range(line: int, col: int, end_line: int, end_col: int) -> dict[str, Any]:
    return {
        "start": {"line": line, "column": col},
        "end": {"line": end_line, "column": end_col},
    }


def suggestions(finding: Finding) -> list[dict[str, Any]]:
    lines = known_lines(finding)
    out = []
    for edit in finding.fix:
        span = convert_edit(edit, lines, UNIT)
        if span is None:
            return []
        out.append({"range": _range(*span), "text": edit.text})
    return out


def diagnostic(finding: Finding, ctx: ReportContext) -> dict[str, Any]:
    location: dict[str, Any] = {"path": escape_path(finding.path.replace("\\", "/"), controls=False)}
    if finding.path and finding.line > 0:
        location["range"] = _range(*finding_span(finding, UNIT))
    code: dict[str, str] = {"value": finding.code}
    doc = ctx.docs.get(finding.code)
    if doc is not None and doc.url:
        code["url"] = doc.url
    diag: dict[str, Any] = {
        "message": finding.message,
        "location": location,
        "severity": SEVERITIES[finding.severity],
        "source": _source(ctx),
        "code": code,
    }
    sugg = suggestions(finding)
    if sugg:
        diag["suggestions"] = sugg
    return diag


def render_rdjson(findings: Sequence[Finding], ctx: ReportContext) -> str:
    items = sorted_findings(findings)
    if items:
        worst = min((f.severity for f in items), key=_RANK.__getitem__)
        severity = SEVERITIES[worst]
    else:
        severity = "UNKNOWN_SEVERITY"
    result = {
        "source": _source(ctx),
        "severity": severity,
        "diagnostics": [diagnostic(f, ctx) for f in items],
    }
    return json.dumps(result, indent=2, ensure_ascii=False) + "\n"


def render_rdjsonl(findings: Sequence[Finding], ctx: ReportContext) -> str:
    return "".join(json.dumps(diagnostic(f, ctx), ensure_ascii=False) + "\n" for f in sorted_findings(findings))
