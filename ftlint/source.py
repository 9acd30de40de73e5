"""Bytes to text to a LibCST module, or an FT000 finding that says why not.

Nothing here raises for bad input: every failure becomes a ``ParseFailure``
naming the cause (encoding, NUL bytes, syntax error with its position).
"""

from __future__ import annotations

import codecs
import io
import os
import tokenize
from dataclasses import dataclass
from pathlib import Path

PARSE_ERROR_CODE = "FT000"
PARSE_ERROR_NAME = "parse-error"


@dataclass(frozen=True)
class ParseFailure:
    """Why a file could not be linted, with the best position known (1-based)."""

    message: str
    line: int = 1
    column: int = 1


def read_bytes(path: Path) -> bytes | ParseFailure:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return ParseFailure("cannot read file: it no longer exists (deleted while linting?)")
    except IsADirectoryError:
        return ParseFailure("cannot read file: it is a directory")
    except PermissionError:
        return ParseFailure("cannot read file: permission denied")
    except OSError as err:
        reason = err.strerror or err.__class__.__name__
        if err.errno is not None and err.errno == 40:  # ELOOP
            reason = "symbolic link loop"
        return ParseFailure(f"cannot read file: {reason}")


def decode(data: bytes) -> str | ParseFailure:
    """Decode as Python does (BOM, PEP 263 coding cookie, default UTF-8)."""
    if b"\x00" in data:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        return ParseFailure("source contains NUL bytes (binary file with a .py name?)", line)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as err:
        return ParseFailure(f"cannot determine encoding: {err.msg}", err.lineno or 1)
    try:
        codecs.lookup(encoding)
    except LookupError:
        return ParseFailure(f"unknown encoding {encoding!r} in coding declaration")
    if encoding == "utf-8" and data.startswith(codecs.BOM_UTF8):
        encoding = "utf-8-sig"
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        return ParseFailure(
            f"cannot decode as {err.encoding}: {err.reason} (byte 0x{data[err.start]:02x})",
            line,
            column,
        )


def parse(text: str):
    """Parse with LibCST; returns a Module or a ParseFailure (imported lazily: cached runs skip it)."""
    import libcst as cst

    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError as err:
        message = str(err.message).strip().splitlines()[0] if err.message else "invalid syntax"
        return ParseFailure(f"syntax error: {message}", err.raw_line, err.raw_column + 1)
    except RecursionError:
        return ParseFailure("too deeply nested to parse")
    except MemoryError:
        return ParseFailure("too large to parse (out of memory)")
    except Exception as err:  # noqa: BLE001 - a parser bug must not stop the run
        return ParseFailure(f"parser failed: {err.__class__.__name__}: {err}")


def load_module(path: Path):
    """(text, module) or (text_or_None, ParseFailure)."""
    data = read_bytes(path)
    if isinstance(data, ParseFailure):
        return None, data
    text = decode(data)
    if isinstance(text, ParseFailure):
        return None, text
    return text, parse(text)


def display_path(path: Path, cwd: Path | None = None) -> str:
    """Path as a user would type it: relative to cwd when under it, '/'-separated."""
    cwd = cwd or Path.cwd()
    try:
        return Path(os.path.relpath(path, cwd)).as_posix() if _is_under(path, cwd) else path.as_posix()
    except ValueError:
        return path.as_posix()


def _is_under(path: Path, parent: Path) -> bool:
    try:
        Path(os.path.abspath(path)).relative_to(os.path.abspath(parent))
        return True
    except ValueError:
        return False
