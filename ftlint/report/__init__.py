"""Reporters: pure functions from findings (+ rule docs) to text, one module per format.

``render(format_name, findings, ctx)`` returns the whole output as one string, ending in a
newline when not empty (``jsonl``/``rdjsonl``/``github`` return "" for no findings); write
it as-is (``sys.stdout.write``), not through ``print``.  No reporter reads files, runs git
or touches the network: everything comes from the findings and :class:`ReportContext`.

Formats: ``text``, ``json``, ``jsonl``, ``github``, ``rdjson``, ``rdjsonl``, ``sarif``,
``markdown``, ``github-review``.  Finding columns are 1-based code points; formats with
other units convert (rdjson: UTF-8 bytes, SARIF: UTF-16 code units).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ftlint.finding import Finding

from ._common import ReportContext
from .github import render_github
from .github_review import render_github_review
from .jsonfmt import render_json, render_jsonl
from .markdown import render_markdown
from .rdjson import render_rdjson, render_rdjsonl
from .sarif import render_sarif
from .text import render_text

Renderer = Callable[[Sequence[Finding], ReportContext], str]

FORMATS: dict[str, Renderer] = {
    "text": render_text,
    "json": render_json,
    "jsonl": render_jsonl,
    "github": render_github,
    "rdjson": render_rdjson,
    "rdjsonl": render_rdjsonl,
    "sarif": render_sarif,
    "markdown": render_markdown,
    "github-review": render_github_review,
}


def render(format_name: str, findings: Sequence[Finding], ctx: ReportContext) -> str:
    try:
        renderer = FORMATS[format_name]
    except KeyError:
        known = ", ".join(FORMATS)
        raise ValueError(
            f"unknown output format {format_name!r} (known: {known})"
        ) from None
    return renderer(list(findings), ctx)


__all__ = ["FORMATS", "Renderer", "ReportContext", "render"]
