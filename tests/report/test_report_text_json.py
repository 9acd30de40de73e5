"""text / json / jsonl: exact output for a couple of findings."""

from __future__ import annotations

import json

from ftlint.core.finding import Finding
from ftlint.report import render
from tests.helpers import NON_ASCII_LINE, ft002, pr001


def test_text_exact(findings, ctx):
    assert render("text", findings, ctx) == (
        "PR001 This pull request changes `vllm/v1/worker.py` (a fault path) but adds no test\n"
        "vllm/v1/core/block_pool.py:40:9: FT002 evict_blocks() in except-handler without holding the block-pool lock\n"
        "vllm/v1/worker.py:12:16: FT001 [*] `drop_stale_output=True` discards the output of a failed step\n"
        "Found 3 errors.\n"
        "[*] 1 fixable with `ftlint check --fix`.\n"
    )


def test_text_singular_and_no_fixable_line(ctx):
    assert render("text", [ft002()], ctx) == (
        "vllm/v1/core/block_pool.py:40:9: FT002 evict_blocks() in except-handler without holding the block-pool lock\n"
        "Found 1 error.\n"
    )


def test_text_clean(ctx):
    assert render("text", [], ctx) == "All checks passed!\n"


def test_text_sorted_by_sort_key(ctx):
    a = ft002(path="b.py", line=3)
    b = ft002(path="a.py", line=9)
    c = ft002(path="a.py", line=2)
    lines = render("text", [a, b, c], ctx).splitlines()
    assert [line.split(":")[0] + ":" + line.split(":")[1] for line in lines[:3]] == [
        "a.py:2",
        "a.py:9",
        "b.py:3",
    ]


def test_text_file_level_finding(ctx):
    out = render("text", [ft002(line=0, column=0, end_line=0, end_column=0)], ctx)
    assert out.startswith("vllm/v1/core/block_pool.py: FT002 ")


def test_json_exact(ctx):
    f = ft002()
    out = render("json", [f], ctx)
    assert out == (
        "[\n"
        "  {\n"
        '    "path": "vllm/v1/core/block_pool.py",\n'
        '    "line": 40,\n'
        '    "column": 9,\n'
        '    "end_line": 40,\n'
        '    "end_column": 26,\n'
        '    "code": "FT002",\n'
        '    "name": "evict-outside-lock",\n'
        '    "message": "evict_blocks() in except-handler without holding the block-pool lock",\n'
        '    "severity": "warning",\n'
        '    "line_text": "        evict_blocks(ids)",\n'
        '    "end_line_text": "        evict_blocks(ids)",\n'
        '    "fix": [],\n'
        '    "fix_title": "",\n'
        '    "fix_applicability": ""\n'
        "  }\n"
        "]\n"
    )


def test_json_roundtrip_sorted_and_unicode(findings, ctx):
    out = render("json", findings, ctx)
    assert "é中🙂" in out  # not \u-escaped
    data = json.loads(out)
    assert [d["code"] for d in data] == ["PR001", "FT002", "FT001"]
    assert [Finding.from_dict(d) for d in data] == sorted(findings, key=lambda f: f.sort_key)


def test_json_empty(ctx):
    assert render("json", [], ctx) == "[]\n"


def test_jsonl_exact(ctx):
    f = pr001(message="PR-level")
    assert (
        render("jsonl", [f, f], ctx)
        == (
            '{"path": "", "line": 0, "column": 0, "end_line": 0, "end_column": 0, "code": "PR001", '
            '"name": "fault-path-without-test", "message": "PR-level", "severity": "warning", '
            '"line_text": "", "end_line_text": "", "fix": [], "fix_title": "", "fix_applicability": ""}\n'
        )
        * 2
    )


def test_jsonl_one_object_per_line(findings, ctx):
    out = render("jsonl", findings, ctx)
    lines = out.splitlines()
    assert len(lines) == 3
    objs = [json.loads(line) for line in lines]
    assert objs[2]["line_text"] == NON_ASCII_LINE
    assert objs[2]["fix"] == [{"line": 12, "column": 38, "end_line": 12, "end_column": 42, "text": "False"}]
    assert render("jsonl", [], ctx) == ""
