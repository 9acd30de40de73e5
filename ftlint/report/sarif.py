"""``sarif``: SARIF 2.1.0 for GitHub code scanning (and any SARIF viewer).

* ``runs[0].tool.driver``: name ``ftlint``, ``semanticVersion``, optional ``informationUri``,
  and one ``reportingDescriptor`` per rule code that appears in the results, sorted by
  code (``ruleIndex`` points into that list).  Each rule has ``shortDescription`` (summary),
  ``fullDescription`` (What it does, at most 1024 characters), ``help.text`` and
  ``help.markdown`` (``RuleDoc.markdown()``), ``defaultConfiguration.level``, ``helpUri``
  when the doc has an absolute URL, and ``properties`` (``tags``, ``problem.severity``).
  A code without a ``RuleDoc`` gets a descriptor built from the finding (GitHub rejects
  empty strings).
* Results: ``ruleId``, ``ruleIndex``, ``level`` (error/warning/note), ``message.text``,
  one location with ``artifactLocation.uri`` = repo-relative POSIX path (percent-encoded
  URI reference) and ``uriBaseId`` ``%SRCROOT%``; a path outside ``ctx.root`` becomes an
  absolute ``file://`` URI without ``uriBaseId``.
* Regions are 1-based with columns in UTF-16 code units (SARIF's default ``columnKind``,
  also stated explicitly on the run), converted from the finding's code-point columns
  using ``line_text`` / ``end_line_text`` (non-BMP characters count 2).  ``endColumn`` is
  the column after the region.  A file-level finding (line 0) is reported on line 1.
* ``partialFingerprints.primaryLocationLineHash``: codeql-action's algorithm, see
  :mod:`ftlint.report.fingerprint` for how it is applied to the one known line.
* PR-level findings without a path cannot be placed in a code-scanning alert (GitHub
  requires a location); they are left out of ``results`` and counted in
  ``runs[0].properties.omittedFindings`` -- the markdown/github-review formats carry them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ftlint.core.finding import Finding, RuleDoc, Severity

from ._common import (
    TOOL_NAME,
    ReportContext,
    finding_span,
    path_bytes,
    repo_relative,
    sorted_findings,
)
from .fingerprint import assign_fingerprints

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
PROBLEM_SEVERITY = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "recommendation",
}
MAX_DESCRIPTION = 1024  # GitHub's limit for shortDescription / fullDescription
MAX_NAME = 255
UNIT = "utf-16"
SRCROOT = "%SRCROOT%"


def _limit(text: str, limit: int = MAX_DESCRIPTION) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _nonempty(*candidates: str) -> str:
    for c in candidates:
        if c and c.strip():
            return c
    return "(no description)"


def _is_absolute_uri(url: str) -> bool:
    scheme, sep, rest = url.partition(":")
    return bool(sep and scheme and scheme[0].isalpha() and rest and " " not in url)


def rule_descriptor(code: str, doc: RuleDoc | None, sample: Finding | None) -> dict[str, Any]:
    if doc is not None:
        name = doc.name
        short = _nonempty(doc.summary, doc.name, code)
        full = _nonempty(doc.what_it_does, doc.summary, code)
        help_md = doc.markdown()
        severity = doc.severity
        url = doc.url
    else:
        name = sample.name if sample else ""
        short = _nonempty(sample.message if sample else "", name, code)
        full = short
        help_md = f"# {name or code} ({code})\n\n{short}\n"
        severity = sample.severity if sample else Severity.ERROR
        url = ""
    descriptor: dict[str, Any] = {"id": code}
    if name:
        descriptor["name"] = name[:MAX_NAME]
    descriptor["shortDescription"] = {"text": _limit(short)}
    descriptor["fullDescription"] = {"text": _limit(full)}
    if not (url and _is_absolute_uri(url)):  # no docs-url: the page is here, and one command away
        help_md = f"{help_md.rstrip()}\n\n`ftlint rule {code}` prints this page.\n"
    descriptor["help"] = {"text": help_md, "markdown": help_md}
    if url and _is_absolute_uri(url):
        descriptor["helpUri"] = url
    descriptor["defaultConfiguration"] = {"level": LEVELS[severity]}
    descriptor["properties"] = {
        "tags": ["fault-path", TOOL_NAME],
        "problem.severity": PROBLEM_SEVERITY[severity],
    }
    return descriptor


def artifact_location(path: str, ctx: ReportContext) -> dict[str, Any]:
    # URIs percent-encode the name's bytes: a non-UTF-8 name keeps its exact bytes (%E9).
    rel = repo_relative(path, ctx)
    if rel is not None:
        return {"uri": quote(path_bytes(rel), safe="/"), "uriBaseId": SRCROOT}
    # Outside the repository root: an absolute file URI.
    p = path
    if not os.path.isabs(p) and ctx.cwd is not None:
        p = os.path.join(str(ctx.cwd), p)
    if os.path.isabs(p):
        posix = Path(os.path.normpath(p)).as_posix()
        return {"uri": "file://" + quote(path_bytes(posix if posix.startswith("/") else "/" + posix), safe="/:")}
    return {"uri": quote(path_bytes(p.replace("\\", "/")), safe="/")}


def region(finding: Finding) -> dict[str, int]:
    if finding.line <= 0:
        return {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 1}
    line, col, end_line, end_col = finding_span(finding, UNIT)
    return {
        "startLine": line,
        "startColumn": col,
        "endLine": end_line,
        "endColumn": end_col,
    }


def build_sarif(findings: Sequence[Finding], ctx: ReportContext) -> dict[str, Any]:
    items = [f for f in sorted_findings(findings) if f.path]
    omitted = sum(1 for f in findings if not f.path)
    codes = sorted({f.code for f in items})
    samples: dict[str, Finding] = {}
    for f in items:
        samples.setdefault(f.code, f)
    rules = [rule_descriptor(code, ctx.docs.get(code), samples.get(code)) for code in codes]
    index = {code: i for i, code in enumerate(codes)}

    locations = [artifact_location(f.path, ctx) for f in items]
    fingerprints = assign_fingerprints(
        [
            (loc["uri"], max(f.line, 1), f.line_text if f.line > 0 else "")
            for f, loc in zip(items, locations, strict=True)
        ]
    )
    results = []
    for f, loc, fp in zip(items, locations, fingerprints, strict=True):
        results.append(
            {
                "ruleId": f.code,
                "ruleIndex": index[f.code],
                "level": LEVELS[f.severity],
                "message": {"text": _nonempty(f.message, f.name, f.code)},
                "locations": [{"physicalLocation": {"artifactLocation": loc, "region": region(f)}}],
                "partialFingerprints": {"primaryLocationLineHash": fp},
            }
        )

    driver: dict[str, Any] = {"name": TOOL_NAME}
    if ctx.tool_version:
        driver["semanticVersion"] = ctx.tool_version
    if ctx.information_uri and _is_absolute_uri(ctx.information_uri):
        driver["informationUri"] = ctx.information_uri
    driver["rules"] = rules
    run: dict[str, Any] = {
        "tool": {"driver": driver},
        "columnKind": "utf16CodeUnits",
        "results": results,
    }
    if omitted:
        run["properties"] = {"omittedFindings": omitted}
    return {"$schema": SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


def render_sarif(findings: Sequence[Finding], ctx: ReportContext) -> str:
    return json.dumps(build_sarif(findings, ctx), indent=2, ensure_ascii=False) + "\n"
