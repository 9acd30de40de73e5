"""How a file name is shown in text: ``escape_path``, shared by the reporters (ftlint.report,
which re-exports it), the CLI's messages and the fix diffs' headers (ftlint.syntax.textedits)."""

from __future__ import annotations

__all__ = ["escape_path"]

_CONTROL_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape_path(path: str, *, controls: bool = True) -> str:
    """A file name as text any UTF-8 output can hold: the bytes of a non-UTF-8 name (which
    Python decodes with ``surrogateescape``) become ``\\xNN``; with ``controls``, control
    characters too (``\\n``, ``\\t``, ``\\x1b``), so a name cannot break a line of text output
    or send terminal escapes.  Names without such characters are returned unchanged."""
    if path.isprintable() and path.isascii():
        return path
    out = []
    for ch in path:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: the undecodable byte code - 0xDC00
            out.append(f"\\x{code - 0xDC00:02x}")
        elif 0xD800 <= code <= 0xDFFF:  # any other lone surrogate cannot be encoded either
            out.append(f"\\u{code:04x}")
        elif controls and not ch.isprintable() and ch != " ":
            out.append(_CONTROL_ESCAPES.get(ch) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"))
        else:
            out.append(ch)
    return "".join(out)
