"""`check --add-noqa`: a `# noqa: FTxxx` comment on every reported line (ruff's
convention), the way to adopt ftlint on a codebase that already has findings.

The comment goes on the reported line, merged into a `# noqa: ...` already there
(its codes and words kept, the missing codes added, sorted) or after any other
comment. Where a comment is not legal there (the line ends inside a multi-line string
or with a backslash) it goes on the last line of the statement, which suppressions.py
reads as covering the whole statement. Files are read and written through
writeback.py, so the codec, BOM, newlines and every other byte stay; a second run
finds nothing to add.
"""

from __future__ import annotations

import io
import os
import re
import tokenize
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path

from ftlint.core.config import Config
from ftlint.core.finding import Finding
from ftlint.core.source import PARSE_ERROR_CODE, ParseFailure, split_lines
from ftlint.core.suppressions import NOQA
from ftlint.core.writeback import WriteProblem, read_source, write_back
from ftlint.lint.engine import lint_paths
from ftlint.lint.unused_noqa import CODE as UNUSED_NOQA
from ftlint.syntax import textedits


@dataclass
class NoqaOutcome:
    added: int = 0  # lines that got a new code
    files: int = 0
    problems: list[WriteProblem] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return any(problem.error for problem in self.problems)


def add_noqa_paths(
    paths: Sequence[Path | str],
    config: Config,
    selected: set[str],
    *,
    exhaustive: bool = False,
    force_exclude: bool = False,
) -> NoqaOutcome:
    outcome = NoqaOutcome()
    result = lint_paths(paths, config, selected, exhaustive=exhaustive, force_exclude=force_exclude)
    by_file: dict[str, list[Finding]] = defaultdict(list)
    for finding in result.findings:
        # never FT100: a noqa for an unused noqa would be the next unused one (ruff skips RUF100 too)
        if finding.code not in (PARSE_ERROR_CODE, UNUSED_NOQA) and finding.line > 0 and finding.path:
            by_file[finding.path].append(finding)
    for path, findings in sorted(by_file.items()):
        source = read_source(Path(path))
        if isinstance(source, ParseFailure):
            outcome.problems.append(WriteProblem(Path(path), f"no noqa added: {source.message}", True))
            continue
        if source.text != result.texts.get(os.path.abspath(path)):
            outcome.problems.append(
                WriteProblem(Path(path), "skipped: the file changed since it was linted (run ftlint again)", False)
            )
            continue
        new_text, added = add_noqa_comments(source.text, findings)
        if new_text is None:
            outcome.problems.append(
                WriteProblem(Path(path), "no noqa added: Python's tokenizer cannot read the file", False)
            )
            continue
        if not added:
            continue
        problem = write_back(source, new_text)
        if problem is not None:
            outcome.problems.append(problem)
            continue
        outcome.added += added
        outcome.files += 1
    return outcome


def add_noqa_comments(text: str, findings: Iterable[Finding]) -> tuple[str | None, int]:
    """(new text, lines changed); None when the text cannot be tokenized or would not
    parse afterwards."""
    layout = _layout(text)
    if layout is None:
        return None, 0
    comments, not_commentable, statement_end = layout
    wanted: dict[int, set[str]] = defaultdict(set)
    for finding in findings:
        line = finding.line
        if line in not_commentable and line not in comments:
            line = statement_end.get(line, line)
            if line in not_commentable and line not in comments:
                continue
        wanted[line].add(finding.code)
    lines = split_lines(text, keepends=True)
    noqa = re.compile(NOQA, re.I)
    changed = 0
    touched: list[int] = []
    for number, codes in sorted(wanted.items()):
        if not 0 < number <= len(lines):
            continue
        line_text = lines[number - 1]
        body = line_text.rstrip("\r\n")
        newline = line_text[len(body) :]
        comment = comments.get(number)
        if comment is not None:
            column, comment_text = comment
            match = noqa.search(comment_text)
            if match is not None:
                if match.group("codes") is None:
                    continue  # a bare noqa comment covers every code already
                existing = [c for c in re.split(r"[\s,]+", match.group("codes").strip()) if c]
                upper = {c.upper() for c in existing}
                missing = sorted(code for code in codes if code not in upper)
                if not missing:
                    continue
                merged = ", ".join(sorted(set(existing) | set(missing), key=str.upper))
                start, end = match.span("codes")
                comment_text = comment_text[:start] + merged + comment_text[end:]
                body = body[:column] + comment_text + body[column + len(comment[1]) :]
            else:
                body = body.rstrip(" \t") + f"  # noqa: {', '.join(sorted(codes))}"
        else:
            body = body.rstrip(" \t") + f"  # noqa: {', '.join(sorted(codes))}"
        lines[number - 1] = body + newline
        changed += 1
        touched.append(number)
    if not changed:
        return text, 0
    new_text = "".join(lines)
    starts = list(accumulate(map(len, lines), initial=0))
    if not textedits.parses(new_text, [starts[number - 1] for number in touched]):  # big files: changed chunks only
        return None, 0
    return new_text, changed


def _layout(text: str) -> tuple[dict[int, tuple[int, str]], set[int], dict[int, int]] | None:
    """(line -> (column, comment token), lines where a comment cannot go at the end,
    line -> last line of its statement), or None when tokenize fails."""
    comments: dict[int, tuple[int, str]] = {}
    not_commentable: set[int] = set()
    statement_end: dict[int, int] = {}
    logical_start: int | None = None
    skip = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE, tokenize.ENDMARKER)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
            if logical_start is None and tok.type not in skip:
                logical_start = tok.start[0]
            if tok.type == tokenize.COMMENT:
                comments[tok.start[0]] = (tok.start[1], tok.string)
            elif tok.type == tokenize.NEWLINE:
                if logical_start is not None:
                    for line in range(logical_start, tok.start[0] + 1):
                        statement_end[line] = tok.start[0]
                logical_start = None
            elif tok.start[0] < tok.end[0] and tok.type not in skip:
                not_commentable.update(range(tok.start[0], tok.end[0]))  # ends inside a string
    except (tokenize.TokenError, SyntaxError):
        return None
    for number, line_text in enumerate(split_lines(text), 1):
        if line_text.rstrip(" \t\f").endswith("\\") and number not in comments:
            not_commentable.add(number)  # a backslash continuation
    return comments, not_commentable, statement_end
