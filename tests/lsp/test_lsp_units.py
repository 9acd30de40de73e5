"""The server's pure parts: finding positions in LSP units, and the `# noqa` edit."""

from __future__ import annotations

from ftlint.lsp import positions
from ftlint.lsp.noqa import noqa_edit
from ftlint.syntax.textedits import apply_edits
from tests.helpers import ROOT


def test_columns_in_each_position_encoding():
    lines = positions.split_lines('x = "é😀" + y\n')
    column = len('x = "é😀" + ') + 1  # 1-based code points, where `y` is
    assert positions.to_client(lines, 1, column, positions.UTF16) == (0, 12)  # 😀 is two UTF-16 units
    assert positions.to_client(lines, 1, column, positions.UTF8) == (0, 15)  # é two bytes, 😀 four
    assert positions.to_client(lines, 1, column, positions.UTF32) == (0, 11)
    for encoding in (positions.UTF8, positions.UTF16, positions.UTF32):
        assert positions.from_client(lines, *positions.to_client(lines, 1, column, encoding), encoding) == (1, column)


def test_lines_split_as_lsp_splits_them():
    """A form feed or U+2028 inside a line does not start a new one (str.splitlines would)."""
    lines = positions.split_lines("a = '\x0c\u2028'\r\nb = 1\rc = 2")
    assert lines == ["a = '\x0c\u2028'\r\n", "b = 1\r", "c = 2"]
    assert positions.to_client(lines, 3, 5, positions.UTF16) == (2, 4)
    # past the end: the end of the document (after its last newline, or at its last character)
    assert positions.to_client(positions.split_lines("a\n"), 2, 1) == (1, 0)
    assert positions.to_client(lines, 4, 1) == (2, 5)


def _apply(text: str, edit) -> str:
    return apply_edits(text, [(edit,)])[0]


def test_noqa_is_added_keeping_the_line():
    text = "free(x)\r\nother()  # keep me\n"
    assert _apply(text, noqa_edit(text, 1, "FT007")) == "free(x)  # noqa: FT007\r\nother()  # keep me\n"
    assert _apply(text, noqa_edit(text, 2, "FT007")) == "free(x)\r\nother()  # keep me  # noqa: FT007\n"


def test_noqa_codes_are_merged_and_never_repeated():
    text = "free(x)  # noqa: FT001\n"
    assert _apply(text, noqa_edit(text, 1, "FT007")) == "free(x)  # noqa: FT001, FT007\n"
    assert noqa_edit(text, 1, "FT001") is None
    assert noqa_edit("free(x)  # noqa\n", 1, "FT007") is None  # a bare noqa covers it already


def test_noqa_goes_only_where_a_comment_can_end_the_line():
    """Inside a string or before a backslash a comment would change the code (or break
    it): no action is offered there; inside brackets a line can take one."""
    text = 'call(a, """\nFT007 here\n""")\n'
    assert noqa_edit(text, 1, "FT007") is None
    assert noqa_edit(text, 2, "FT007") is None
    text = "x = a + \\\n    free(b)\n"
    assert noqa_edit(text, 1, "FT007") is None
    assert _apply(text, noqa_edit(text, 2, "FT007")) == "x = a + \\\n    free(b)  # noqa: FT007\n"
    text = "free(\n    a,\n)\n"
    assert _apply(text, noqa_edit(text, 1, "FT007")) == "free(  # noqa: FT007\n    a,\n)\n"


def test_a_diagnostic_links_to_a_rule_page_only_when_a_docs_url_is_configured():
    from ftlint.core.finding import Finding
    from ftlint.lsp.server import to_diagnostic

    line = "    scheduler.finish_requests(None, ABORTED)"
    finding = Finding("h.py", 1, 5, 1, len(line) + 1, "FT007", "missing-dirty-eviction", "frees", line_text=line)
    lines = positions.split_lines(line + "\n")
    plain = to_diagnostic(finding, lines)
    assert plain.code_description is None and plain.code == "FT007" and plain.source == "ftlint"
    linked = to_diagnostic(finding, lines, docs_url="https://docs.example.org/rules/{code}-{name}")
    assert linked.code_description.href == "https://docs.example.org/rules/FT007-missing-dirty-eviction"


def test_noqa_edits_of_one_text_tokenize_it_once(monkeypatch):
    """Code actions on a big buffer: one tokenization per document version, not one per
    finding (issue 23: 8 MB, 90 s for the next code action)."""
    import tokenize

    calls = []
    real = tokenize.generate_tokens

    def counting(readline):
        calls.append(1)
        return real(readline)

    monkeypatch.setattr(tokenize, "generate_tokens", counting)
    text = "".join(f"free(x{n})\n" for n in range(200)) + "# one of a kind\n"
    edits = [noqa_edit(text, n + 1, "FT007") for n in range(200)]
    assert all(e is not None for e in edits)
    assert len(calls) == 1


def test_clients_read_frames_with_the_servers_parser():
    """tests/lsp/raw.py and benchmarks/bench_server.py read the server's frames with
    ftlint.lsp.framing.read_bodies (one frame reader, not one per client)."""
    import io

    import pytest

    from ftlint.lsp.framing import MalformedFrame, read_bodies

    stream = io.BytesIO(b"Content-Length: 2\r\n\r\n{}Content-Length: 7\r\nContent-Type: x\r\n\r\n[1,2,3]")
    assert list(read_bodies(stream, chunk=5)) == [b"{}", b"[1,2,3]"]
    with pytest.raises(MalformedFrame):
        list(read_bodies(io.BytesIO(b"Content-Length: x\r\n\r\n{}")))
    for client in ("tests/lsp/raw.py", "benchmarks/bench_server.py"):
        source = (ROOT / client).read_text()
        assert "read_bodies(" in source and "readline()" not in source, client
