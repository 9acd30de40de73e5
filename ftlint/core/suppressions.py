"""`# noqa` comments: line-based, read from comment tokens (no parent walk).

- `# noqa: FT001, FT005` on the reported line, or on the first or last line of the
  statement holding it (as flake8; the last line is where `--add-noqa` puts it when the
  reported line ends inside a string or with a backslash), suppresses those codes; a
  bare `# noqa` suppresses everything there.
- `# ftlint: noqa` on a line of its own suppresses the whole file;
  `# ftlint: noqa: FT001` only those codes.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

from ftlint.core.source import split_lines

#: A line's noqa comment and its codes (compile with re.I; add_noqa.py extends them).
NOQA = r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?"
_FILE_NOQA = r"#\s*ftlint:\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?"
ALL = "*"


def _codes(text: str | None) -> frozenset[str]:
    if not text:
        return frozenset({ALL})
    return frozenset(c.upper() for c in re.split(r"[\s,]+", text.strip()) if c)


@dataclass
class Suppressions:
    by_line: dict[int, frozenset[str]] = field(default_factory=dict)
    statement_start: dict[int, int] = field(default_factory=dict)  # physical line -> first line of its statement
    statement_end: dict[int, int] = field(default_factory=dict)  # physical line -> last line of its statement
    file_codes: frozenset[str] = frozenset()

    def suppresses(self, code: str, line: int) -> bool:
        if ALL in self.file_codes or code in self.file_codes:
            return True
        for candidate in {line, self.statement_start.get(line, line), self.statement_end.get(line, line)}:
            codes = self.by_line.get(candidate)
            if codes and (ALL in codes or code in codes):
                return True
        return False


def parse_suppressions(text: str) -> Suppressions:
    result = Suppressions()
    if "noqa" not in text.lower():
        return result
    # compiled here, not at import: most files have no noqa, and re.I costs ~2 ms to compile
    noqa, file_noqa = re.compile(NOQA, re.I), re.compile(_FILE_NOQA, re.I)
    file_codes: set[str] = set()
    logical_start = None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
            if logical_start is None and tok.type not in (
                tokenize.NL,
                tokenize.COMMENT,
                tokenize.INDENT,
                tokenize.DEDENT,
            ):
                logical_start = tok.start[0]
            if tok.type == tokenize.COMMENT:
                file_match = file_noqa.match(tok.string)
                if file_match:
                    file_codes |= _codes(file_match.group("codes"))
                    continue
                match = noqa.search(tok.string)
                if match:
                    line = tok.start[0]
                    result.by_line[line] = result.by_line.get(line, frozenset()) | _codes(match.group("codes"))
            elif tok.type == tokenize.NEWLINE:
                if logical_start is not None:
                    for line in range(logical_start, tok.end[0] + 1):
                        result.statement_start[line] = logical_start
                        result.statement_end[line] = tok.end[0]
                logical_start = None
    except (tokenize.TokenError, IndentationError, SyntaxError):
        # A file that parsed with LibCST but not with tokenize: fall back to plain lines.
        for number, line_text in enumerate(split_lines(text), 1):
            match = noqa.search(line_text)
            if match:
                result.by_line[number] = _codes(match.group("codes"))
    result.file_codes = frozenset(file_codes)
    return result


@dataclass(frozen=True)
class NoqaDirective:
    """One line's `# noqa: CODES` directive as written (a bare `# noqa` has no codes).
    Columns are 0-based code points in the line; `codes` holds each code as spelt with
    its (start, end) columns."""

    line: int
    comment_start: int  # where the comment token starts
    comment: str  # the comment token (to the end of the line)
    start: int  # where `#\s*noqa` starts
    end: int  # the end of the directive (after its last code)
    codes: tuple[tuple[str, int, int], ...]


def noqa_directives(text: str) -> list[NoqaDirective]:
    """Every line `# noqa: CODES` directive of `text` with codes (file-level `# ftlint: noqa`
    and bare `# noqa` left out), read from comment tokens; [] when tokenize fails."""
    if "noqa" not in text.lower():
        return []
    noqa, file_noqa = re.compile(NOQA, re.I), re.compile(_FILE_NOQA, re.I)
    found = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
            if tok.type != tokenize.COMMENT or file_noqa.match(tok.string):
                continue
            match = noqa.search(tok.string)
            if match is None or match.group("codes") is None:
                continue
            base = tok.start[1]
            codes_at = match.start("codes")
            codes = tuple(
                (code.group(), base + codes_at + code.start(), base + codes_at + code.end())
                for code in re.finditer(r"[^\s,]+", match.group("codes"))
            )
            found.append(NoqaDirective(tok.start[0], base, tok.string, base + match.start(), base + match.end(), codes))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []
    return found
