"""FT100 unused-noqa (ruff's RUF100), computed by the engine after a file's rules ran:
the `# noqa: FTxxx` codes that suppressed nothing, and the FT codes no rule has.

Precision first, so a code is reported only where this run proves it unused:

* only FT codes of rules that ran over the file (selected, not in its per-file-ignores,
  not a rule that failed with an internal error); other tools' codes (`E501`, `BLE001`)
  are never touched, and a bare `# noqa` is never reported (flake8 and ruff read it too);
* only on lines the rules looked at: inside a fault-path function (the innermost
  function holding the line is in the fault path) or anywhere in a `fault-paths` file.
  A noqa elsewhere may be used by a run whose handlers reach that code (another
  `fault-handlers` setting, another file added): it is left alone;
* never FT000 (a parse error, not checked line by line in an outlined file) nor FT100;
  never a code that a file-level `# ftlint: noqa` suppresses anyway.

The fix removes the unused codes only, keeping the comment's other codes, words,
spacing and the line's newline; with no code left it removes the directive (the whole
comment when it held nothing else).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable

from ftlint.core.finding import Edit, Finding, Severity
from ftlint.core.source import PARSE_ERROR_CODE, split_lines
from ftlint.core.suppressions import ALL, NoqaDirective, noqa_directives, parse_suppressions

CODE = "FT100"
NAME = "unused-noqa"
MESSAGE = "Unused `noqa` directive"
FIX_TITLE = "Remove unused `noqa` directive"
_OURS = re.compile(r"FT[0-9]+")


def unused_noqa_findings(
    text: str,
    display: str,
    findings: Iterable[Finding],
    *,
    checked_codes: Collection[str],
    known_codes: Collection[str],
    checked_line: Callable[[int], bool],
) -> list[Finding]:
    """FT100 findings of a file. `findings`: what the rules reported there before any
    `# noqa` was applied (selection and per-file-ignores applied); `checked_codes`: the
    rule codes that ran over the file; `known_codes`: every rule code; `checked_line(n)`:
    whether the rules looked at line n."""
    directives = [d for d in noqa_directives(text) if any(_OURS.fullmatch(c.upper()) for c, _, _ in d.codes)]
    if not directives:
        return []
    noqa = parse_suppressions(text)
    used: set[tuple[int, str]] = set()
    for finding in findings:
        line = finding.line
        for candidate in {line, noqa.statement_start.get(line, line), noqa.statement_end.get(line, line)}:
            used.add((candidate, finding.code))
    file_wide = noqa.file_codes
    lines = split_lines(text)
    result = []
    for directive in directives:
        if not checked_line(directive.line):
            continue
        unused, unknown = [], []
        for code, start, end in directive.codes:
            upper = code.upper()
            if not _OURS.fullmatch(upper) or upper in (PARSE_ERROR_CODE, CODE) or ALL in file_wide:
                continue
            if upper not in known_codes:
                unknown.append((code, start, end))
            elif upper in checked_codes and upper not in file_wide and (directive.line, upper) not in used:
                unused.append((code, start, end))
        if unused or unknown:
            result.append(_finding(display, lines, directive, unused, unknown))
    return result


def _finding(
    display: str,
    lines: list[str],
    directive: NoqaDirective,
    unused: list[tuple[str, int, int]],
    unknown: list[tuple[str, int, int]],
) -> Finding:
    parts = []
    if unused:
        parts.append("unused: " + ", ".join(f"`{code}`" for code, _, _ in unused))
    if unknown:
        parts.append("unknown: " + ", ".join(f"`{code}`" for code, _, _ in unknown))
    line_text = lines[directive.line - 1] if directive.line <= len(lines) else ""
    removed = {start for _, start, _ in unused + unknown}
    return Finding(
        path=display,
        line=directive.line,
        column=directive.start + 1,
        end_line=directive.line,
        end_column=directive.end + 1,
        code=CODE,
        name=NAME,
        message=f"{MESSAGE} ({'; '.join(parts)})",
        severity=Severity.WARNING,
        line_text=line_text,
        end_line_text=line_text,
        fix=(removal_edit(line_text, directive, removed),),
        fix_title=FIX_TITLE,
        fix_applicability="safe",
    )


def removal_edit(line_text: str, directive: NoqaDirective, removed: Collection[int]) -> Edit:
    """The edit removing the codes starting at the columns `removed` from the directive:
    each with the separator after it (before it, for the last code kept); the directive
    itself when no code is left (with its line, when the comment stood alone on it)."""
    codes = directive.codes
    line = directive.line
    if any(c[1] not in removed for c in codes):
        first, last = codes[0][1], codes[-1][2]
        pieces = [line_text[codes[i][2] : codes[i + 1][1]] for i in range(len(codes) - 1)]  # separators
        text = ""
        for index, (code, start, _end) in enumerate(codes):
            if start in removed:
                continue
            text += (pieces[index - 1] if text else "") + code  # the separator that stood before it
        return Edit(line, first + 1, line, last + 1, text)
    body = line_text.rstrip("\r\n")
    after = body[directive.end :]
    if directive.start == directive.comment_start:
        if not after.strip() and not body[: directive.start].strip(" \t\f"):  # a line of its own: all of it
            return Edit(line, 1, line + 1, 1, "")
        if not after.strip():  # the whole comment, and the blanks before it
            start = len(body[: directive.start].rstrip(" \t\f"))
            return Edit(line, start + 1, line, len(body) + 1, "")
        rest = after.lstrip(" \t\f")
        if rest.startswith("#"):  # a second comment follows: it stays, alone
            return Edit(line, directive.start + 1, line, len(body) - len(rest) + 1, "")
        return Edit(line, directive.start + 1, line, directive.end + 1, "#")  # words follow: `# why`
    # the end of a longer comment (after `# type: ignore`): the directive and the blanks before it
    start = len(body[: directive.start].rstrip(" \t\f"))
    return Edit(line, start + 1, line, directive.end + 1, "")
