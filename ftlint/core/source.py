"""Bytes to text to a LibCST module, or an FT000 finding that says why not.

Nothing here raises for bad input: every failure becomes a ``ParseFailure``
naming the cause (encoding, NUL bytes, syntax error with its position).
"""

from __future__ import annotations

import codecs
import io
import os
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ftlint.core.finding import Finding, Severity

if TYPE_CHECKING:
    import ast

    import libcst as cst

PARSE_ERROR_CODE = "FT000"

#: A physical line as Python counts them: ended by \r\n, \r or \n only. str.splitlines also
#: breaks at \f, \v, \x1c-\x1e, \x85, U+2028 and U+2029, which can sit in a docstring or a
#: comment: line numbers (and a fix's edits) would drift from LibCST's and Python's.
_PHYSICAL_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str, keepends: bool = False) -> list[str]:
    """The physical lines of `text` as Python numbers them (never str.splitlines)."""
    lines = _PHYSICAL_LINE.findall(text)
    if keepends:
        return lines
    return [line.rstrip("\r\n") for line in lines]


PARSE_ERROR_NAME = "parse-error"


@dataclass(frozen=True)
class ParseFailure:
    """Why a file could not be linted, with the best position known (1-based)."""

    message: str
    line: int = 1
    column: int = 1


def failure_finding(path: str, failure: ParseFailure, text_lines: list[str] | None = None) -> Finding:
    """The FT000 finding that reports `failure` in the file shown as `path`; `text_lines`:
    the file's lines, for the finding's line text."""
    line_text = ""
    if text_lines and 0 < failure.line <= len(text_lines):
        line_text = text_lines[failure.line - 1]
    return Finding(
        path=path,
        line=failure.line,
        column=failure.column,
        end_line=failure.line,
        end_column=failure.column,
        code=PARSE_ERROR_CODE,
        name=PARSE_ERROR_NAME,
        message=failure.message,
        severity=Severity.ERROR,
        line_text=line_text,
        end_line_text=line_text,
    )


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
    decoded = decode_with_encoding(data)
    return decoded if isinstance(decoded, ParseFailure) else decoded[0]


def decode_with_encoding(data: bytes) -> tuple[str, str] | ParseFailure:
    """(text, codec) as Python decodes `data`; the codec ("utf-8-sig" when a BOM leads)
    encodes a fixed text back to the same bytes on every line it did not change."""
    if b"\x00" in data:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        return ParseFailure("source contains NUL bytes (binary file with a .py name?)", line)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as err:
        if data.startswith(codecs.BOM_UTF8) and str(err.msg).startswith("encoding problem"):
            return ParseFailure(
                "cannot determine encoding: the UTF-8 BOM contradicts the coding declaration", err.lineno or 1
            )
        if "invalid or missing encoding declaration" in str(err.msg):
            # No (valid) coding cookie and the first lines are not UTF-8: say where and why.
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as bad:
                return _decode_failure(data, bad)
        return ParseFailure(f"cannot determine encoding: {err.msg}", err.lineno or 1)
    try:
        codecs.lookup(encoding)
    except LookupError:
        return ParseFailure(f"unknown encoding {encoding!r} in coding declaration")
    if encoding == "utf-8" and data.startswith(codecs.BOM_UTF8):
        encoding = "utf-8-sig"
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError as err:
        return _decode_failure(data, err)


def _decode_failure(data: bytes, err: UnicodeDecodeError, extra: str = "") -> ParseFailure:
    line = data.count(b"\n", 0, err.start) + 1
    column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
    encoding = "utf-8" if err.encoding in ("utf-8-sig", "utf8") else err.encoding
    return ParseFailure(
        f"cannot decode as {encoding}: {err.reason} (byte 0x{data[err.start]:02x}){extra}",
        line,
        column,
    )


# -- nesting limits ------------------------------------------------------------------------
# LibCST's native parser recurses on the C stack (a segfault, not an exception, past a few
# thousand levels) and ftlint's visitors recurse in Python (RecursionError past ~130 levels of
# nested lists, ~300 of a `+` chain). So before parsing: more than MAX_BRACKET_DEPTH nested
# brackets is refused outright (CPython's tokenizer refuses the same: "too many nested
# parentheses"); a file nesting brackets past BRACKET_CHECK_DEPTH, or with a logical line holding
# more than MAX_NESTING_DEPTH operators, gets a precise check with CPython's own parser (which
# fails cleanly) and is refused past MAX_NESTING_DEPTH levels of AST nesting.
MAX_BRACKET_DEPTH = 200
BRACKET_CHECK_DEPTH = 50
MAX_NESTING_DEPTH = 100
MAX_CONCATENATED_STRINGS = 200
MAX_ELIF_CHAIN = 2000  # LibCST nests each elif in the one before: ~3 visitor frames apiece
_NATIVE_SAFE_OPERATORS = 2000  # chains LibCST's native parser is known to survive

#: a run of characters that start no token, then the token (group 1): a string (triple-quoted
#: ones first), a comment, a bracket, a line continuation or a newline. Told apart by
#: their first character; the leading run is skipped at C speed (no search per position)
_SCAN_RE = re.compile(
    r"""[^'"#()\[\]{}\\\r\n]*("""
    r"'''(?:\\.|[\s\S])*?(?:'''|\Z)"
    r'|"""(?:\\.|[\s\S])*?(?:"""|\Z)'
    r"""|'(?:\\.|[^'\\\n])*'?|"(?:\\.|[^"\\\n])*"?"""
    r"|#[^\n]*"
    r"|[(\[{)\]}]"
    r"|\\\r?\n"
    r"|\r?\n|\r"
    r")"
)
_QUOTES, _OPENERS, _CLOSERS = frozenset("'\""), frozenset("([{"), frozenset(")]}")
_OPERATOR_RE = re.compile(r"[-+~*/%@&|^<>.=(\[{]|\b(?:not|and|or|if|lambda|await)\b")


def _too_deep(message: str, text: str, offset: int) -> ParseFailure:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return ParseFailure(message, line, column)


def nesting_failure(text: str, tree: ast.Module | None = None) -> ParseFailure | None:
    """A ParseFailure when ``text`` nests deeper than ftlint can parse and visit safely.
    `tree`: Python's tree of `text` when the caller has it (the step scan's): read, not
    parsed again, where the check needs one."""
    if len(text) <= MAX_NESTING_DEPTH:
        return None
    if text.count("elif") > MAX_ELIF_CHAIN:
        too_long = _elif_chain_failure(text)
        if too_long is not None:
            return too_long
    openers = text.count("(") + text.count("[") + text.count("{")
    if openers <= BRACKET_CHECK_DEPTH and len(text) <= 4 * MAX_NESTING_DEPTH:
        return None
    scanned = _scan_nesting(text)
    if isinstance(scanned, ParseFailure):
        return scanned
    max_depth, long_lines = scanned
    operators = max((len(_OPERATOR_RE.findall(text, s, e)) for s, e in long_lines), default=0)
    if max_depth <= BRACKET_CHECK_DEPTH and operators <= MAX_NESTING_DEPTH:
        return None
    return _ast_nesting_failure(text, operators) if tree is None else _tree_nesting_failure(tree)


def _scan_nesting(text: str) -> ParseFailure | tuple[int, list[tuple[int, int]]]:
    """One pass over the text's brackets, strings and newlines: the failure for a run of
    concatenated string literals or brackets nested too deep, else the deepest bracket
    nesting and the (start, end) of each logical line longer than MAX_NESTING_DEPTH."""
    depth = max_depth = 0
    line_start = 0
    long_lines: list[tuple[int, int]] = []
    run = prev_end = 0  # implicitly concatenated string literals (nested in LibCST, flat in the AST)
    for m in _SCAN_RE.finditer(text):
        start = m.start(1)
        first = text[start]
        if first in _QUOTES:
            run = run + 1 if run and not text[prev_end:start].strip() else 1
            prev_end = m.end()
            if run > MAX_CONCATENATED_STRINGS:
                return _too_deep(
                    f"too deeply nested: more than {MAX_CONCATENATED_STRINGS} implicitly concatenated "
                    f"string literals (ftlint's limit)",
                    text,
                    start,
                )
            continue
        run = 0
        if first in _OPENERS:
            depth += 1
            if depth > max_depth:
                max_depth = depth
                if depth > MAX_BRACKET_DEPTH:
                    return _too_deep(
                        f"too deeply nested: more than {MAX_BRACKET_DEPTH} nested brackets "
                        f"(Python's own limit is {MAX_BRACKET_DEPTH})",
                        text,
                        start,
                    )
        elif first in _CLOSERS:
            if depth:
                depth -= 1
        elif depth == 0 and (first == "\n" or first == "\r"):
            if start - line_start > MAX_NESTING_DEPTH:
                long_lines.append((line_start, start))
            line_start = m.end()
    if len(text) - line_start > MAX_NESTING_DEPTH:
        long_lines.append((line_start, len(text)))
    return max_depth, long_lines


_LINE_START_RE = re.compile(r"^([ \t]*)([^\s#(:]*)", re.MULTILINE)


def _elif_chain_failure(text: str) -> ParseFailure | None:
    """An if/elif chain longer than MAX_ELIF_CHAIN (counted per indentation by line starts:
    CPython's own parser gives up near 4,000, LibCST's native one crashes near 10,000)."""
    chains: dict[int, int] = {}
    for m in _LINE_START_RE.finditer(text):
        indent, word = len(m.group(1).expandtabs()), m.group(2)
        if not word:
            continue  # blank, comment or bracket-continued line
        for deeper in [k for k in chains if k > indent]:
            del chains[deeper]
        chains[indent] = chains.get(indent, 0) + 1 if word == "elif" else 0
        if chains[indent] > MAX_ELIF_CHAIN:
            return _too_deep(
                f"too deeply nested: an if/elif chain of more than {MAX_ELIF_CHAIN} branches (ftlint's limit)",
                text,
                m.start(2),
            )
    return None


def _ast_nesting_failure(text: str, operators: int) -> ParseFailure | None:
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (RecursionError, MemoryError):
        return ParseFailure("too deeply nested: Python's own parser gives up on it")
    except SyntaxError as err:
        msg = str(err.msg)
        if "too many nested" in msg or "too complex" in msg:
            return ParseFailure(f"too deeply nested: {msg}", err.lineno or 1, err.offset or 1)
        if operators > _NATIVE_SAFE_OPERATORS:
            return ParseFailure(
                f"too deeply nested: a logical line holds {operators} operators and Python "
                f"cannot parse the file ({msg})",
                err.lineno or 1,
                err.offset or 1,
            )
        return None  # LibCST reports the syntax error (it may accept newer syntax than this Python)
    except ValueError:
        return None
    return _tree_nesting_failure(tree)


def _tree_nesting_failure(tree: ast.Module) -> ParseFailure | None:
    """The nesting past MAX_NESTING_DEPTH in Python's tree, where LibCST's is deeper."""
    import ast

    # Any: the position attributes (lineno, col_offset) are only on some node types. The
    # children are pushed as ast.iter_child_nodes yields them, without its generators (a
    # third of the time on a big module, whose every node is visited)
    stack: list[tuple[Any, int, int, int]] = [(tree, 0, 1, 1)]
    pop, push, node_type, bool_op = stack.pop, stack.append, ast.AST, ast.BoolOp
    while stack:
        node, depth, line, column = pop()
        lineno = getattr(node, "lineno", None)  # an int wherever the parser sets it
        if lineno is not None:
            line, column = lineno, node.col_offset + 1
        if depth > MAX_NESTING_DEPTH:
            return ParseFailure(
                f"too deeply nested: more than {MAX_NESTING_DEPTH} levels of nested "
                f"expressions and statements (ftlint's limit)",
                line,
                column,
            )
        # LibCST nests `a and b and c` (flat in the AST) one level per operator
        inner = depth + (len(node.values) if type(node) is bool_op else 1)
        for name in node._fields:
            field = getattr(node, name, None)
            if isinstance(field, node_type):
                push((field, inner, line, column))
            elif isinstance(field, list):
                for item in field:
                    if isinstance(item, node_type):
                        push((item, inner, line, column))
    return None


_ERROR_AT = re.compile(r"^(?:parser error: )?error at (?P<line>\d+):(?P<column>\d+): (?P<rest>.*)$")


def _python_position(text: str) -> tuple[int, int] | None:
    """(line, column) where `compile()` reports the syntax error, as Python (and ruff) show
    it (LibCST's parser stops later: a missing `:` is found on the next line)."""
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<ftlint>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as err:
        if err.lineno is not None and err.lineno > 0:
            return err.lineno, max(err.offset or 1, 1)
    except Exception:  # noqa: BLE001 - null bytes, too deep: LibCST's position stands
        return None
    return None


def parse(text: str) -> cst.Module | ParseFailure:
    """Parse with LibCST; returns a Module or a ParseFailure (imported lazily: cached runs skip it)."""
    import libcst as cst

    too_deep = nesting_failure(text)
    if too_deep is not None:
        return too_deep
    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError as err:
        message = str(err.message).strip().splitlines()[0] if err.message else "invalid syntax"
        line, column = err.raw_line, err.raw_column + 1
        # the native parser words it "parser error: error at L:C: expected ..." and its L:C (0-based
        # column) is where it stopped, while raw_line/raw_column point at the statement's start
        where = _ERROR_AT.match(message)
        if where is not None:
            line, column, message = int(where["line"]), int(where["column"]) + 1, where["rest"]
            lines = split_lines(text)
            if line > len(lines):  # stopped at the end of the file: point at the last line's end
                message = f"unexpected end of file: {message}"
                line = max(len(lines), 1)
                column = len(lines[-1]) + 1 if lines else 1
        line, column = _python_position(text) or (line, column)
        return ParseFailure(f"syntax error: {message}", line, column)
    except RecursionError:
        return ParseFailure("too deeply nested to parse")
    except MemoryError:
        return ParseFailure("too large to parse (out of memory)")
    except Exception as err:  # noqa: BLE001 - a parser bug must not stop the run
        return ParseFailure(f"parser failed: {err.__class__.__name__}: {err}")


def read_text(path: Path) -> str | ParseFailure:
    """The file's text (BOM and PEP 263 coding honoured), or why it cannot be read."""
    data = read_bytes(path)
    return data if isinstance(data, ParseFailure) else decode(data)


def load_module(path: Path) -> tuple[str | None, cst.Module | ParseFailure]:
    """(text, module) or (text_or_None, ParseFailure)."""
    text = read_text(path)
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


#: files past this many characters are parsed with Python's parser in top-level chunks
#: (outline.outline_ops, textedits' parse check): its tree of a whole 9 MB file takes
#: about 2 GB, a chunk's only a chunk's share (issue 23).
CHUNK_CHARS = 64_000
_TOP_LEVEL = re.compile(r"^(?:def |class |async def |@)", re.M)


def top_level_chunks(text: str, size: int | None = None) -> Iterator[tuple[int, int, Any]]:
    """(start offset, first line, ast.Module) of consecutive pieces of `text` that Python
    parses alone, each ending before a `def`, `class` or decorator line at column 0 and
    together the whole text. A piece that does not parse alone (a string or bracket
    still open at the cut, a decorator cut from its def) is doubled until it does, so a
    cut is always a top-level statement boundary. Raises SyntaxError or ValueError as
    ast.parse does when the rest of the text does not parse (the caller parses it whole)."""
    import ast
    import warnings
    from bisect import bisect_left

    size = size or CHUNK_CHARS
    bounds = [0, *(m.start() for m in _TOP_LEVEL.finditer(text) if m.start()), len(text)]
    last = len(bounds) - 1
    i, line = 0, 1
    while i < last:
        j = min(max(bisect_left(bounds, bounds[i] + size, i + 1), i + 1), last)
        while True:
            chunk = text[bounds[i] : bounds[j]]
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    tree = ast.parse(chunk)
                break
            except SyntaxError:
                if j == last:
                    raise
                j = min(last, j + (j - i))
        yield bounds[i], line, tree
        del tree
        line += chunk.count("\n") + chunk.count("\r") - chunk.count("\r\n")
        i = j
