"""markdown: section order, escaping, non-ASCII; parsed back with a CommonMark parser."""

from __future__ import annotations

import markdown_it
import pytest

from ftlint.core.finding import Edit
from ftlint.report import render
from tests.helpers import NON_ASCII_LINE, ft001, ft002, make_ctx, pr001


def parse(text: str):
    md = markdown_it.MarkdownIt("commonmark", {"html": True})
    return md, md.parse(text)


def to_html(text: str) -> str:
    md = markdown_it.MarkdownIt("commonmark", {"html": True})
    return md.render(text)


def headings(text: str) -> list[str]:
    _, tokens = parse(text)
    out = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            out.append(tokens[i + 1].content)
    return out


def test_verdict_first_line(findings, ctx):
    out = render("markdown", findings, ctx)
    assert out.splitlines()[0] == "ftlint found 3 problems in 2 files and the pull request"
    assert render("markdown", [ft001()], ctx).splitlines()[0] == "ftlint found 1 problem in 1 file"
    assert render("markdown", [pr001()], ctx).splitlines()[0] == "ftlint found 1 problem in the pull request"
    assert render("markdown", [], ctx) == "ftlint: no problems found\n"
    assert render("markdown", [], make_ctx(title="FT bot")) == "FT bot: no problems found\n"


def test_sections_order(findings, ctx):
    out = render("markdown", findings, ctx)
    assert headings(out) == [
        "PR001: fault-path-without-test",
        "FT002: evict-outside-lock",
        "[FT001](https://ftlint.example/rules/FT001): stale-output-discard",
    ]


def test_section_content(ctx):
    out = render("markdown", [ft001()], ctx)
    section = out.split("### ", 1)[1]
    # heading, location, message, why, fix -- in that order
    order = [
        "[FT001](https://ftlint.example/rules/FT001): stale-output-discard",
        "**Location:** `vllm/v1/worker.py:12`",
        "`drop_stale_output=True` discards the output of a failed step",
        "**Why is this bad?**\nA failed step leaves dirty KV blocks; discarding its output hides them.",
        "**Suggested fix:** Set `drop_stale_output` to `False`",
        "```diff\n@@ -12,1 +12,1 @@\n-" + NON_ASCII_LINE + "\n+" + NON_ASCII_LINE.replace("True", "False") + "\n```",
    ]
    positions = [section.index(part) for part in order]
    assert positions == sorted(positions)
    _, tokens = parse(out)
    fences = [t for t in tokens if t.type == "fence"]
    assert [f.info for f in fences] == ["diff"]
    assert "é中🙂" in fences[0].content


def test_escaping_script_pipe_backticks(ctx):
    msg = "bad <script>alert(1)</script> a|b `code|<x>` stray ` tick *not bold* [link](x)"
    out = render("markdown", [ft002(message=msg)], ctx)
    html = to_html(out)
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    # the code span survives and keeps its literal content
    assert "<code>code|&lt;x&gt;</code>" in html
    assert "<em>" not in html and "<a href" not in html
    # plain-text rendering shows the original characters
    _, tokens = parse(out)
    texts = "".join(
        child.content
        for tok in tokens
        if tok.type == "inline"
        for child in tok.children or []
        if child.type in ("text", "code_inline")
    )
    assert "a|b" in texts and "stray ` tick" in texts and "*not bold*" in texts


def test_escaping_in_paths_and_titles(ctx):
    f = ft001(path="we`ird|<p>.py", fix_title="Use `False` <b>now</b>")
    out = render("markdown", [f], make_ctx(root=None, cwd=None))
    assert "``we`ird|<p>.py:12``" in out
    html = to_html(out)
    assert "<b>" not in html and "&lt;b&gt;now&lt;/b&gt;" in html


def test_chinese_passes_through(ctx):
    msg = "故障路径上丢弃了输出 `drop_stale_output`，请检查"
    out = render("markdown", [ft002(message=msg)], ctx)
    assert msg in out
    assert "故障路径上丢弃了输出" in to_html(out)


def test_block_markers_neutralised(ctx):
    out = render("markdown", [ft002(message="# not a heading\n- not a list")], ctx)
    assert headings(out) == ["FT002: evict-outside-lock"]
    _, tokens = parse(out)
    assert not any(t.type == "bullet_list_open" for t in tokens)


def test_unappliable_fix_lists_edits(ctx):
    f = ft002(fix=(Edit(44, 3, 44, 8, "x"),), fix_title="Rename")
    out = render("markdown", [f], ctx)
    assert "**Suggested fix:** Rename" in out
    assert "- 44:3-44:8: replace with `x`" in out
    assert "```diff" not in out


def test_fix_with_backticks_gets_longer_fence(ctx):
    line = "    s = '```'"
    f = ft002(
        line_text=line,
        end_line_text=line,
        column=5,
        end_column=14,
        fix=(Edit(40, 9, 40, 14, "'~~~'"),),
    )
    out = render("markdown", [f], ctx)
    _, tokens = parse(out)
    (fence,) = [t for t in tokens if t.type == "fence"]
    assert fence.info == "diff" and "'```'" in fence.content and fence.markup == "````"


@pytest.mark.parametrize(
    ("message", "shown"),
    [
        ("a|b", "a\\|b"),
        ("`x|y`", "`x|y`"),  # code spans are kept as they are
        ("<x> & y", "&lt;x&gt; &amp; y"),
        ("中文🙂", "中文🙂"),
        ("1. one", "1\\. one"),  # not a list item
    ],
)
def test_a_message_is_inline_markdown(message, shown):
    out = render("markdown", [ft002(message=message)], make_ctx())
    assert "\n\n" + shown + "\n\n**Why is this bad?**" in out
