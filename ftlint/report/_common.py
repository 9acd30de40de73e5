"""Shared helpers for the reporters: context, paths, column units, fixes, Markdown escaping.

Everything here is pure: no file reading, no git, no network, no environment look-ups
(not even ``Path.cwd()``); the caller passes what it knows in :class:`ReportContext`.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ftlint.core.finding import Edit, Finding, RuleDoc
from ftlint.core.names import escape_path as escape_path  # re-exported: the reporters import it from here

TOOL_NAME = "ftlint"


@dataclass(frozen=True)
class ReportContext:
    """What a reporter may know besides the findings themselves."""

    docs: Mapping[str, RuleDoc]  # code -> doc, for every code that may appear
    tool_version: str
    # Repository root, for repo-relative URIs (SARIF artifactLocation.uri, review comment paths).
    root: Path | None = None
    # Directory that relative ``Finding.path`` values are relative to (default: ``root``).
    cwd: Path | None = None
    # github-review: repo-relative POSIX path -> added/modified line numbers (RIGHT side);
    # None = unknown (every line finding becomes an inline comment).
    diff_lines: Mapping[str, frozenset[int]] | None = None
    title: str = "ftlint"
    # Absolute URL of ftlint's home page (SARIF driver.informationUri, rdjson source.url).
    information_uri: str | None = None
    # ANSI colours in the text format (the CLI decides: a TTY, NO_COLOR, FORCE_COLOR).
    color: bool = False
    # `--unsafe-fixes`: unsafe fixes count as fixable (text marks them [*]); otherwise hidden
    unsafe_fixes: bool = False


# --------------------------------------------------------------------------- findings


def sorted_findings(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: f.sort_key)


def is_pr_level(finding: Finding) -> bool:
    """A finding about the pull request / project rather than a file line."""
    return not finding.path or finding.line <= 0


def plural(n: int, word: str, plural_word: str | None = None) -> str:
    return f"{n} {word if n == 1 else (plural_word or word + 's')}"


# --------------------------------------------------------------------------- paths


def _posix(path: str) -> str:
    return path.replace("\\", "/")


def repo_relative(path: str, ctx: ReportContext) -> str | None:
    """``path`` relative to ``ctx.root`` with '/' separators, or None when it lies outside.

    Relative paths are taken relative to ``ctx.cwd`` (or ``ctx.root`` when no cwd is given).
    Without a root the path is returned as given (POSIX separators, leading './' dropped).
    Pure string arithmetic: symlinks are not resolved.
    """
    if not path:
        return None
    if ctx.root is None:
        posix = PurePosixPath(_posix(path))
        return str(posix) if str(posix) != "." else None
    root = os.path.normpath(str(ctx.root))
    p = path
    if not os.path.isabs(p):
        base = str(ctx.cwd) if ctx.cwd is not None else root
        p = os.path.join(base, p)
    p = os.path.normpath(p)
    try:
        rel = os.path.relpath(p, root)
    except ValueError:  # different drives on Windows
        return None
    rel = _posix(rel)
    if rel == "." or rel == ".." or rel.startswith("../"):
        return None
    return rel


def display_path(path: str, ctx: ReportContext) -> str:
    """Repo-relative POSIX path when known, else the path as given (POSIX separators);
    escaped with :func:`escape_path` (a data format escapes control characters itself)."""
    rel = repo_relative(path, ctx)
    return escape_path(rel if rel is not None else _posix(path), controls=False)


def path_bytes(path: str) -> bytes:
    """The file name's bytes (the inverse of ``os.fsdecode`` on POSIX)."""
    return path.encode("utf-8", "surrogateescape")


# --------------------------------------------------------------------------- columns
#
# Finding / Edit columns are 1-based Unicode code points.  Other formats count in UTF-8
# bytes (rdjson) or UTF-16 code units (SARIF).  A column ``col`` on a line whose text is
# known converts as ``units(text[:col - 1]) + 1``.  When ``col - 1`` exceeds the known
# text (e.g. the text is unknown, ""), the characters beyond it are counted as one unit
# each: the code-point column is the best available guess.


def _units(text: str, unit: str) -> int:
    if unit == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    if unit == "utf-16":
        return len(text.encode("utf-16-le", "surrogatepass")) // 2
    return len(text)


def column_known(text: str, col: int) -> bool:
    """True when ``col`` (1-based code points) can be converted exactly using ``text``."""
    return col >= 1 and col - 1 <= len(text)


def convert_column(text: str, col: int, unit: str) -> int:
    """1-based code-point column -> 1-based column in ``unit`` ('utf-8' or 'utf-16')."""
    if col <= 1:
        return max(col, 1)
    head = text[: col - 1]
    overflow = (col - 1) - len(head)
    return _units(head, unit) + overflow + 1


def clean_line(text: str) -> str:
    """A source line without its line terminator."""
    return text.rstrip("\r\n")


def known_lines(finding: Finding) -> dict[int, str]:
    """Line number -> text for the lines the finding carries (its start and end line)."""
    lines: dict[int, str] = {}
    if finding.line > 0:
        lines[finding.line] = clean_line(finding.line_text)
    if finding.end_line > 0 and finding.end_line != finding.line:
        lines[finding.end_line] = clean_line(finding.end_line_text)
    elif finding.end_line == finding.line and finding.end_line_text and not finding.line_text:
        lines[finding.line] = clean_line(finding.end_line_text)
    return lines


def start_end_text(finding: Finding) -> tuple[str, str]:
    lines = known_lines(finding)
    start = lines.get(finding.line, "")
    end = lines.get(finding.end_line, start if finding.end_line == finding.line else "")
    return start, end


def finding_span(finding: Finding, unit: str) -> tuple[int, int, int, int]:
    """(line, column, end_line, end_column) of the finding with columns in ``unit``.

    A missing/invalid end (end_line 0, or an end before the start) collapses to the start.
    """
    start_text, end_text = start_end_text(finding)
    line = max(finding.line, 1)
    col = convert_column(start_text, max(finding.column, 1), unit)
    end_line, end_col_cp = finding.end_line, finding.end_column
    if end_line <= 0 or (end_line, end_col_cp) < (finding.line, finding.column):
        end_line, end_col_cp = finding.line, finding.column
        end_text = start_text
    end_col = convert_column(end_text, max(end_col_cp, 1), unit)
    return line, col, max(end_line, 1), end_col


def convert_edit(edit: Edit, lines: Mapping[int, str], unit: str) -> tuple[int, int, int, int] | None:
    """Edit positions in ``unit``; None unless both ends are convertible exactly.

    A position is convertible when its line's text is known (``lines``) and covers the
    column, or when the column is 1 (the start of a line is column 1 in every unit).
    """
    out: list[int] = []
    for line, col in ((edit.line, edit.column), (edit.end_line, edit.end_column)):
        if col == 1 and line >= 1:
            out += [line, 1]
            continue
        text = lines.get(line)
        if text is None or not column_known(text, col):
            return None
        out += [line, convert_column(text, col, unit)]
    return out[0], out[1], out[2], out[3]


# --------------------------------------------------------------------------- fixes


@dataclass(frozen=True)
class AppliedFix:
    """The effect of a finding's fix on the block of whole lines ``first..last``."""

    first: int
    last: int
    # The block's lines before the fix; None for a line the finding does not carry (a
    # line the fix replaces whole, whose old text is not needed to show the new one).
    old_lines: tuple[str | None, ...]
    new_lines: tuple[str, ...]  # what replaces those lines (empty: the lines are deleted)

    @property
    def old_known(self) -> bool:
        return all(line is not None for line in self.old_lines)


_UNKNOWN = "\x00"  # stands for a line whose text the finding does not carry


def apply_fix(finding: Finding) -> AppliedFix | None:
    """Apply ``finding.fix`` to the whole lines it touches.

    Only the finding's start and end lines travel with it.  A line the fix replaces whole
    (an edit from column 1 of a line to column 1 of a later one, as ftlint's fixes are)
    need not be known; a line an edit starts or ends inside must be.  A pure insertion at
    column 1 of line L is shown on an anchor line it keeps: line L - 1 (the insertion
    follows it) or line L (the insertion precedes it), whichever is known.  Returns None
    when there is no fix, when the block needs an unknown line, or when edits overlap.
    """
    if not finding.fix:
        return None
    lines = known_lines(finding)
    ranges: list[tuple[int, int]] = []  # whole lines each edit touches
    for e in finding.fix:
        if (e.end_line, e.end_column) < (e.line, e.column):
            return None
        if (e.line, e.column) == (e.end_line, e.end_column) and e.column == 1:
            if e.line - 1 in lines:
                ranges.append((e.line - 1, e.line - 1))
            elif e.line in lines:
                ranges.append((e.line, e.line))
            else:
                return None
            continue
        last = e.end_line - 1 if e.end_column == 1 and e.end_line > e.line else e.end_line
        ranges.append((e.line, last))
    first = min(a for a, _ in ranges)
    last = max(b for _, b in ranges)
    block_lines = [lines.get(n) for n in range(first, last + 1)]
    texts = [_UNKNOWN if text is None else text for text in block_lines]
    starts: list[int] = []
    off = 0
    for text in texts:
        starts.append(off)
        off += len(text) + 1
    starts.append(off)  # column 1 of the line after the block
    block = "\n".join(texts) + "\n"

    def offset(line: int, col: int) -> int | None:
        idx = line - first
        if idx < 0 or idx > len(texts):
            return None
        if col == 1:
            return starts[idx]
        if idx == len(texts) or block_lines[idx] is None:
            return None
        if not column_known(texts[idx], col):
            return None
        return starts[idx] + col - 1

    spans = []
    for e in finding.fix:
        a, b = offset(e.line, e.column), offset(e.end_line, e.end_column)
        if a is None or b is None or b < a:
            return None
        spans.append((a, b, e.text))
    spans.sort(key=lambda s: (s[0], s[1]))
    for (_a1, b1, _t1), (a2, _b2, _t2) in itertools.pairwise(spans):
        if a2 < b1:
            return None
    new = block
    for a, b, text in reversed(spans):
        new = new[:a] + text + new[b:]
    if _UNKNOWN in new and _UNKNOWN not in "".join(e.text for e in finding.fix):
        return None  # an unknown line survives the fix: its text would be needed
    if new == "":
        new_lines: tuple[str, ...] = ()
    else:
        new = new.removesuffix("\n")
        new_lines = tuple(line.removesuffix("\r") for line in new.split("\n"))  # CRLF files
    return AppliedFix(first, last, tuple(block_lines), new_lines)


# --------------------------------------------------------------------------- Markdown


def code_span(text: str) -> str:
    """``text`` as a CommonMark inline code span, whatever backticks it contains."""
    text = text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    if text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" ") and text.strip()):
        text = f" {text} "
    return f"{fence}{text}{fence}"


def code_block(content: str, lang: str = "") -> str:
    """A fenced code block that cannot be closed early by backticks in ``content``."""
    longest = max((len(m) for m in re.findall(r"`{3,}", content)), default=0)
    fence = "`" * max(3, longest + 1)
    body = content if content.endswith("\n") or content == "" else content + "\n"
    return f"{fence}{lang}\n{body}{fence}"


_ESCAPE_CHARS = {
    "\\": "\\\\",
    "*": "\\*",
    "_": "\\_",
    "[": "\\[",
    "]": "\\]",
    "|": "\\|",
    "~": "\\~",
    "`": "\\`",
    "<": "&lt;",
    ">": "&gt;",
    "&": "&amp;",
}


def _escape_plain(text: str, line_start: bool) -> str:
    out = "".join(_ESCAPE_CHARS.get(ch, ch) for ch in text)
    if line_start:
        # Block syntax at the start of a line: headings, lists, thematic breaks, quotes.
        out = re.sub(r"^(\s*)([#+\-=])", r"\1\\\2", out)
        out = re.sub(r"^(\s*\d+)([.)])", r"\1\\\2", out)
    return out


def md_inline(text: str) -> str:
    """Escape a plain-text message for Markdown, keeping its `code spans` as code.

    Backtick runs that form a CommonMark code span (a closing run of the same length
    exists) stay code spans (content is literal there: no HTML, no emphasis); the rest is
    escaped: ``\\ * _ [ ] | ~`` and stray backticks get a backslash, ``< > &`` become
    entities (so ``<script>`` is shown, never rendered), and block markers at a line
    start (``#``, ``-``, ``1.``) are neutralised.  Newlines become Markdown hard breaks.
    Non-ASCII text passes through unchanged.
    """
    out_lines = []
    for raw_line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        out_lines.append(_md_line(raw_line))
    return "  \n".join(out_lines)


def _md_line(line: str) -> str:
    parts: list[str] = []
    i = 0
    plain_start = 0
    n = len(line)
    while i < n:
        if line[i] != "`":
            i += 1
            continue
        j = i
        while j < n and line[j] == "`":
            j += 1
        run = j - i
        # Look for a closing run of exactly the same length.
        k = j
        close = -1
        while k < n:
            if line[k] == "`":
                m = k
                while m < n and line[m] == "`":
                    m += 1
                if m - k == run:
                    close = k
                    break
                k = m
            else:
                k += 1
        if close == -1:
            i = j  # stray backticks: escaped as plain text below
            continue
        parts.append(_escape_plain(line[plain_start:i], line_start=plain_start == 0))
        parts.append(line[i : close + run])
        i = close + run
        plain_start = i
    parts.append(_escape_plain(line[plain_start:], line_start=plain_start == 0))
    return "".join(parts)
