"""Reporters: pure functions from findings (+ rule docs) to text, one module per format.

``render(format_name, findings, ctx)`` returns the whole output as one string, ending in a
newline when not empty (``jsonl``/``rdjsonl``/``github`` return "" for no findings); write
it as-is (``sys.stdout.write``), not through ``print``.  No reporter reads files, runs git
or touches the network: everything comes from the findings and :class:`ReportContext`.

Formats: ``text``, ``json``, ``jsonl``, ``github``, ``rdjson``, ``rdjsonl``, ``sarif``,
``markdown``, ``github-review``.  Finding columns are 1-based code points; formats with
other units convert (rdjson: UTF-8 bytes, SARIF: UTF-16 code units).

:data:`FORMATS` is the one place a format is registered: ``ftlint check --format`` (and
``ftlint review``) offer :func:`format_names`, read when the command line is parsed.  A new
format is a module here with a renderer function and one entry in ``FORMATS`` (or a
:func:`register_format` call before the command line is parsed).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence

from ftlint.core.finding import Finding

from ._common import ReportContext, code_span, escape_path

Renderer = Callable[[Sequence[Finding], ReportContext], str]

#: format name -> (module, renderer function); a module name starting with "." is in this
#: package. A run imports only the reporter it prints with (a pre-commit run pays for
#: `text`, not for SARIF's tables).
FORMATS: dict[str, tuple[str, str]] = {
    "text": (".text", "render_text"),
    "json": (".jsonfmt", "render_json"),
    "jsonl": (".jsonfmt", "render_jsonl"),
    "github": (".github", "render_github"),
    "rdjson": (".rdjson", "render_rdjson"),
    "rdjsonl": (".rdjson", "render_rdjsonl"),
    "sarif": (".sarif", "render_sarif"),
    "markdown": (".markdown", "render_markdown"),
    "github-review": (".github_review", "render_github_review"),
}


def format_names() -> tuple[str, ...]:
    """The registered format names, in registration order (the CLI's ``--format`` choices)."""
    return tuple(FORMATS)


def register_format(name: str, module: str, function: str) -> None:
    """Register ``name`` as rendered by ``module.function`` (a :data:`Renderer`); ``module``
    is imported only when the format is used ("." + name: a module of this package)."""
    FORMATS[name] = (module, function)


def renderer(format_name: str) -> Renderer:
    try:
        module, function = FORMATS[format_name]
    except KeyError:
        known = ", ".join(FORMATS)
        raise ValueError(f"unknown output format {format_name!r} (known: {known})") from None
    found: Renderer = getattr(importlib.import_module(module, __name__), function)
    return found


def render(format_name: str, findings: Sequence[Finding], ctx: ReportContext) -> str:
    return renderer(format_name)(list(findings), ctx)


__all__ = [
    "FORMATS",
    "Renderer",
    "ReportContext",
    "code_span",
    "escape_path",
    "format_names",
    "register_format",
    "render",
    "renderer",
]
