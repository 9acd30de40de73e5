"""The reporter registry and the helpers every format shares."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ftlint.finding import Edit
from ftlint.report import FORMATS, ReportContext, render
from ftlint.report._common import (
    apply_fix,
    code_span,
    convert_column,
    convert_edit,
    finding_span,
    repo_relative,
)
from tests.helpers import NON_ASCII_LINE, ft001, ft002, make_ctx

EXPECTED_FORMATS = {
    "text",
    "json",
    "jsonl",
    "github",
    "rdjson",
    "rdjsonl",
    "sarif",
    "markdown",
    "github-review",
}


def test_format_names():
    assert set(FORMATS) == EXPECTED_FORMATS


@pytest.mark.parametrize("name", sorted(EXPECTED_FORMATS))
def test_every_format_is_deterministic_and_order_independent(name, findings, ctx):
    out = render(name, findings, ctx)
    assert out == render(name, list(reversed(findings)), ctx)
    assert out.endswith("\n")


NOTHING_FOUND = {
    "text": lambda out: out == "All checks passed!\n",
    "json": lambda out: json.loads(out) == [],
    "jsonl": lambda out: out == "",
    "github": lambda out: out == "",
    "rdjson": lambda out: json.loads(out)["diagnostics"] == [],
    "rdjsonl": lambda out: out == "",
    "sarif": lambda out: [run["results"] for run in json.loads(out)["runs"]] == [[]],
    "markdown": lambda out: out == "ftlint: no problems found\n",
    "github-review": lambda out: json.loads(out)["comments"] == [] and "no problems" in json.loads(out)["body"],
}


@pytest.mark.parametrize("name", sorted(EXPECTED_FORMATS))
def test_every_format_says_nothing_was_found(name, ctx):
    out = render(name, [], ctx)
    assert NOTHING_FOUND[name](out), out


def test_unknown_format():
    with pytest.raises(ValueError, match="unknown output format"):
        render("xml", [], make_ctx())


def test_context_defaults():
    ctx = ReportContext(docs={}, tool_version="1.2.3")
    assert ctx.root is None and ctx.cwd is None and ctx.diff_lines is None and ctx.title == "ftlint"


def test_columns_convert_per_unit():
    col = NON_ASCII_LINE.index("y.drop") + 1  # 16 in code points
    assert col == 16
    # 4 spaces + 'x = "' + é (2 bytes) + 中 (3) + 🙂 (4) + '"; ' = 21 bytes before y
    assert convert_column(NON_ASCII_LINE, col, "utf-8") == 22
    # é, 中 are 1 UTF-16 unit each, 🙂 is a surrogate pair
    assert convert_column(NON_ASCII_LINE, col, "utf-16") == 17
    # unknown text: code points are the best guess
    assert convert_column("", 7, "utf-8") == 7
    assert convert_column(NON_ASCII_LINE, 1, "utf-8") == 1


def test_finding_span_collapses_missing_end():
    f = ft002(end_line=0, end_column=0)
    assert finding_span(f, "utf-8") == (40, 9, 40, 9)


def test_convert_edit_only_on_known_lines():
    lines = {12: NON_ASCII_LINE}
    assert convert_edit(Edit(12, 38, 12, 42, "False"), lines, "utf-8") == (
        12,
        44,
        12,
        48,
    )
    assert convert_edit(Edit(13, 5, 13, 9, "x"), lines, "utf-8") is None
    # column 1 is column 1 in every unit, known line or not
    assert convert_edit(Edit(30, 1, 31, 1, ""), lines, "utf-8") == (30, 1, 31, 1)


def test_repo_relative_paths():
    ctx = make_ctx(root=Path("/repo"), cwd=Path("/repo/vllm"))
    assert repo_relative("v1/worker.py", ctx) == "vllm/v1/worker.py"
    assert repo_relative("/repo/a/b.py", ctx) == "a/b.py"
    assert repo_relative("/elsewhere/x.py", ctx) is None
    assert repo_relative("../../x.py", ctx) is None
    no_root = ReportContext(docs={}, tool_version="0")
    assert repo_relative("./a\\b.py", no_root) == "a/b.py"


def test_apply_fix_single_line():
    applied = apply_fix(ft001())
    assert applied is not None
    assert (applied.first, applied.last) == (12, 12)
    assert applied.new_lines == (NON_ASCII_LINE.replace("True", "False"),)


def test_apply_fix_whole_line_deletion():
    f = ft002(fix=(Edit(40, 1, 41, 1, ""),))
    applied = apply_fix(f)
    assert applied is not None and (applied.first, applied.last) == (40, 40)
    assert applied.new_lines == ()


def test_apply_fix_unknown_line_gives_up():
    f = ft002(fix=(Edit(45, 3, 45, 4, "x"),))
    assert apply_fix(f) is None


def test_apply_fix_overlapping_edits_give_up():
    f = ft002(fix=(Edit(40, 9, 40, 15, "a"), Edit(40, 12, 40, 20, "b")))
    assert apply_fix(f) is None


def test_code_span_handles_backticks():
    assert code_span("plain") == "`plain`"
    assert code_span("a`b") == "``a`b``"
    assert code_span("`x`") == "`` `x` ``"
