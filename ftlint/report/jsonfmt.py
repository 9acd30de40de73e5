"""``json`` (one array, indent 2) and ``jsonl`` (one object per line) of ``Finding.to_dict()``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ftlint.core.finding import Finding

from ._common import ReportContext, escape_path, sorted_findings


def finding_dict(finding: Finding) -> dict[str, Any]:
    """``Finding.to_dict()`` with the path escaped (a non-UTF-8 name's bytes as ``\\xNN``)."""
    data = finding.to_dict()
    data["path"] = escape_path(finding.path, controls=False)
    return data


def render_json(findings: Sequence[Finding], ctx: ReportContext) -> str:
    data = [finding_dict(f) for f in sorted_findings(findings)]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def render_jsonl(findings: Sequence[Finding], ctx: ReportContext) -> str:
    return "".join(json.dumps(finding_dict(f), ensure_ascii=False) + "\n" for f in sorted_findings(findings))
