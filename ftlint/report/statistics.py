"""``--statistics``: the number of findings per rule code, as ruff prints it.

Text: ``count<TAB>code<TAB>[*] name`` per code (``[ ]`` when none of its findings has a
fix), most frequent first, then the usual summary.  JSON: a list of ``{code, name, count,
fixable, fixable_count}`` in the same order (ruff's keys)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ftlint.core.finding import Finding

from ._common import ReportContext
from .text import BOLD, CYAN, RED, paint, summary


def statistics(findings: Sequence[Finding], ctx: ReportContext) -> list[dict[str, Any]]:
    by_code: dict[str, dict[str, Any]] = {}
    for f in findings:
        doc = ctx.docs.get(f.code)
        entry = by_code.setdefault(
            f.code, {"code": f.code, "name": (doc.name if doc else "") or f.name, "count": 0, "fixable_count": 0}
        )
        entry["count"] += 1
        entry["fixable_count"] += bool(f.fix)
    rows = sorted(by_code.values(), key=lambda e: (-e["count"], e["code"]))
    return [
        {
            "code": e["code"],
            "name": e["name"],
            "count": e["count"],
            "fixable": e["fixable_count"] > 0,
            "fixable_count": e["fixable_count"],
        }
        for e in rows
    ]


def render_statistics(format_name: str, findings: Sequence[Finding], ctx: ReportContext) -> str:
    rows = statistics(findings, ctx)
    if format_name == "json":
        return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
    if format_name != "text":
        raise ValueError(f"--statistics prints text or json, not {format_name}")
    if not rows:
        return "All checks passed!\n"
    count_width = max(len(str(r["count"])) for r in rows)
    code_width = max(len(r["code"]) for r in rows)
    lines = []
    for r in rows:
        marker = paint("[*]", CYAN, ctx.color) if r["fixable"] else "[ ]"
        code = paint(r["code"].ljust(code_width), BOLD + RED, ctx.color)
        lines.append(f"{str(r['count']).rjust(count_width)}\t{code}\t{marker} {r['name']}")
    lines += summary(list(findings), ctx.color, ctx.unsafe_fixes)
    return "\n".join(lines) + "\n"
