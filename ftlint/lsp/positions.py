"""Finding positions (1-based lines, 1-based columns in code points) to LSP positions
(0-based lines, columns in the negotiated units: UTF-16 code units unless the client
offers and the server picks another) and back. Lines split as LSP splits them: at
`\\n`, `\\r\\n` and `\\r` only (Python's splitlines also splits at `\\f`, `\\x1c`,
U+2028 and more, which would shift every line after one)."""

from __future__ import annotations

import re

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def split_lines(text: str) -> list[str]:
    """The document's lines with their endings, as LSP numbers them."""
    return _LINE.findall(text)


def _strip_ending(line: str) -> str:
    return line.rstrip("\r\n")


def units(text: str, encoding: str = UTF16) -> int:
    """How many code units `text` is in the position encoding."""
    if encoding == UTF32:
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def to_client(lines: list[str], line: int, column: int, encoding: str = UTF16) -> tuple[int, int]:
    """(0-based line, character) of a 1-based line and 1-based code-point column.
    A line past the end is the end of the document."""
    index = line - 1
    if index >= len(lines):
        if not lines:
            return 0, 0
        last = lines[-1]
        if last != _strip_ending(last):  # the text ends with a newline: the line after it
            return len(lines), 0
        return len(lines) - 1, units(last, encoding)
    text = _strip_ending(lines[max(index, 0)])
    return max(index, 0), units(text[: max(column - 1, 0)], encoding)


def from_client(lines: list[str], line: int, character: int, encoding: str = UTF16) -> tuple[int, int]:
    """(1-based line, 1-based code-point column) of an LSP position."""
    if line >= len(lines):
        return line + 1, 1
    text = _strip_ending(lines[line])
    count = 0
    for index, ch in enumerate(text):
        if count >= character:
            return line + 1, index + 1
        count += units(ch, encoding)
    return line + 1, len(text) + 1
