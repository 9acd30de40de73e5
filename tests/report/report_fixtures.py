"""Hand-built findings and rule docs for the reporter tests (the engine is not needed)."""

from __future__ import annotations

from pathlib import Path

from ftlint.finding import Edit, Finding, RuleDoc, Severity
from ftlint.report import ReportContext

HERE = Path(__file__).parent
ROOT = Path("/repo")

# A line with multi-byte characters (2-, 3- and 4-byte UTF-8; the emoji is outside the BMP)
# before the flagged expression.
NON_ASCII_LINE = '    x = "é中🙂"; y.drop_stale_output = True'


def make_docs() -> dict[str, RuleDoc]:
    return {
        "FT001": RuleDoc(
            code="FT001",
            name="stale-output-discard",
            summary="`drop_stale_output=True` discards outputs of a failed step",
            what_it_does="Checks for `drop_stale_output=True` on the fault path.",
            why_bad="A failed step leaves dirty KV blocks; discarding its output hides them.",
            example="y.drop_stale_output = True",
            use_instead="y.drop_stale_output = False",
            severity=Severity.ERROR,
            url="https://ftlint.example/rules/FT001",
            extra={"Known problems": "Aliases are not tracked."},
        ),
        "FT002": RuleDoc(
            code="FT002",
            name="evict-outside-lock",
            summary="evict_blocks() called without the pool lock",
            what_it_does="Finds evict_blocks() in except handlers outside `with pool.lock`.",
            why_bad="Concurrent eviction corrupts the free list.",
            example="evict_blocks(ids)",
            use_instead="with pool.lock:\n    evict_blocks(ids)",
            severity=Severity.WARNING,
            url="",
        ),
        "PR001": RuleDoc(
            code="PR001",
            name="fault-path-without-test",
            summary="The pull request changes a fault path without a test",
            what_it_does="Flags PRs that touch fault-path code but no tests.",
            why_bad="Fault paths are rarely exercised; untested changes regress silently.",
            example="",
            use_instead="",
            severity=Severity.WARNING,
        ),
    }


def ft001(
    path: str = "vllm/v1/worker.py",
    line: int = 12,
    line_text: str = NON_ASCII_LINE,
    **kw,
) -> Finding:
    col = line_text.index("y.drop") + 1
    true_col = line_text.index("True") + 1
    end_col = len(line_text) + 1
    defaults = {
        "path": path,
        "line": line,
        "column": col,
        "end_line": line,
        "end_column": end_col,
        "code": "FT001",
        "name": "stale-output-discard",
        "message": "`drop_stale_output=True` discards the output of a failed step",
        "severity": Severity.ERROR,
        "line_text": line_text,
        "end_line_text": line_text,
        "fix": (Edit(line, true_col, line, end_col, "False"),),
        "fix_title": "Set `drop_stale_output` to `False`",
    }
    defaults.update(kw)
    return Finding(**defaults)


def ft002(path: str = "vllm/v1/core/block_pool.py", line: int = 40, **kw) -> Finding:
    text = "        evict_blocks(ids)"
    defaults = {
        "path": path,
        "line": line,
        "column": 9,
        "end_line": line,
        "end_column": len(text) + 1,
        "code": "FT002",
        "name": "evict-outside-lock",
        "message": "evict_blocks() in except-handler without holding the block-pool lock",
        "severity": Severity.WARNING,
        "line_text": text,
        "end_line_text": text,
    }
    defaults.update(kw)
    return Finding(**defaults)


def pr001(**kw) -> Finding:
    defaults = {
        "path": "",
        "line": 0,
        "column": 0,
        "end_line": 0,
        "end_column": 0,
        "code": "PR001",
        "name": "fault-path-without-test",
        "message": "This pull request changes `vllm/v1/worker.py` (a fault path) but adds no test",
        "severity": Severity.WARNING,
    }
    defaults.update(kw)
    return Finding(**defaults)


def make_ctx(**kw) -> ReportContext:
    defaults = {"docs": make_docs(), "tool_version": "0.1.0", "root": ROOT, "cwd": ROOT}
    defaults.update(kw)
    return ReportContext(**defaults)
