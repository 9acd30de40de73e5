"""The `# noqa: FTxxx` code action: the text edit that suppresses one code on one line,
keeping what the line holds (code, other comments, codes already listed)."""

from __future__ import annotations

import functools
import io
import re
import tokenize

from ftlint.core.finding import Edit
from ftlint.lsp.positions import split_lines

_NOQA = re.compile(r"#\s*noqa(?P<colon>:\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.I)


def noqa_edit(text: str, line: int, code: str) -> Edit | None:
    """An edit adding `code` to the `# noqa` of `line` (1-based), or of the first line of
    the statement holding it when a comment cannot end `line` (inside a string, after a
    backslash). None when the code is suppressed there already or no line can take it."""
    lines = _lines(text)
    try:
        ends, comments, starts = _layout(text)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    for target in dict.fromkeys((line, starts.get(line, line))):
        if target in comments or target in ends:
            return _edit(lines, target, comments.get(target), code)
    return None


@functools.lru_cache(maxsize=4)
def _layout(text: str) -> tuple[set[int], dict[int, tokenize.TokenInfo], dict[int, int]]:
    """Tokenized once per text (a document version): every finding's action reuses it.
    (lines a comment may end, {line: its comment token}, {line: first line of its statement})."""
    ends: set[int] = set()
    comments: dict[int, tokenize.TokenInfo] = {}
    starts: dict[int, int] = {}
    first: int | None = None
    for tok in tokenize.generate_tokens(io.StringIO(text, newline="").readline):
        if first is None and tok.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            first = tok.start[0]
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok
        elif tok.type in (tokenize.NEWLINE, tokenize.NL):
            ends.add(tok.start[0])
            if tok.type == tokenize.NEWLINE and first is not None:
                for number in range(first, tok.end[0] + 1):
                    starts[number] = first
                first = None
    return ends, comments, starts


@functools.lru_cache(maxsize=4)
def _lines(text: str) -> list[str]:
    return split_lines(text)


def _edit(lines: list[str], number: int, comment: tokenize.TokenInfo | None, code: str) -> Edit | None:
    content = lines[number - 1].rstrip("\r\n") if number <= len(lines) else ""
    if comment is not None:
        start = comment.start[1]
        found = _NOQA.search(comment.string)
        if found is not None:
            if not found.group("colon"):
                return None  # a bare noqa comment suppresses every code already
            codes = {c.upper() for c in re.split(r"[\s,]+", found.group("codes")) if c}
            if code in codes:
                return None
            at = start + found.end("codes")
            return Edit(number, at + 1, number, at + 1, f", {code}")
    stripped = len(content.rstrip())
    return Edit(number, stripped + 1, number, len(content) + 1, f"  # noqa: {code}")
