"""``json`` (one array, indent 2) and ``jsonl`` (one object per line) of ``Finding.to_dict()``."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ftlint.finding import Finding

from ._common import ReportContext, sorted_findings


def render_json(findings: Sequence[Finding], ctx: ReportContext) -> str:
    data = [f.to_dict() for f in sorted_findings(findings)]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def render_jsonl(findings: Sequence[Finding], ctx: ReportContext) -> str:
    return "".join(
        json.dumps(f.to_dict(), ensure_ascii=False) + "\n"
        for f in sorted_findings(findings)
    )
