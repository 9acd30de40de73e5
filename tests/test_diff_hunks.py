"""`--diff`'s hunks are built from where the fixes changed the text, not by difflib over the
whole file (issue 23: difflib took 244 s on 2 MB and did not finish on 9 MB). On small
generated files with generated fixes the output is difflib.unified_diff's, byte for byte;
on texts where a line could be aligned in two ways it is still a diff that turns one text
into the other."""

from __future__ import annotations

import difflib
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ftlint.core.finding import Edit
from ftlint.core.source import split_lines
from ftlint.syntax import hunks, textedits

PROPERTY = settings(max_examples=300, deadline=None, database=None, derandomize=True)
NEWLINES = st.sampled_from(["\n", "\r\n", "\r"])


def difflib_diff(before: str, after: str, name: str = "f.py") -> str:
    return "".join(
        difflib.unified_diff(
            split_lines(before, keepends=True), split_lines(after, keepends=True), f"a/{name}", f"b/{name}"
        )
    )


@st.composite
def files_and_fixes(draw) -> tuple[str, list[tuple[Edit, ...]]]:
    """A Python file of distinct lines (statements and one-statement `if` blocks, one newline
    style or mixed, maybe no newline at the end) and non-overlapping fixes on it: whole-line
    replacements, removals and insertions of one or several lines (adjacent ones, at the start
    and at the end included), and edits inside a line."""
    style = draw(NEWLINES)
    mixed = draw(st.booleans())
    lines: list[str] = []
    for i in range(draw(st.integers(0, 30))):
        ending = draw(NEWLINES) if mixed else style
        if draw(st.booleans()):
            lines.append(f"x{i} = {i}{ending}")
        else:
            lines += [f"if x{i}:{ending}", f"    x{i} = {i}{ending}"]
    if lines and draw(st.booleans()):
        lines[-1] = lines[-1].rstrip("\r\n")
    text = "".join(lines)
    cuts = sorted(draw(st.lists(st.integers(0, len(lines)), max_size=8)))
    edits: list[Edit] = []
    fresh = iter(range(1000))
    for start, end in zip(cuts[::2], cuts[1::2], strict=False):
        inside = [n for n in range(start, end) if " = " in lines[n]]
        if start < end and inside and draw(st.booleans()):  # inside a line: the value
            n = draw(st.sampled_from(inside))
            column = lines[n].index(" = ") + 4
            value = lines[n][column - 1 :].rstrip("\r\n")
            edits.append(Edit(n + 1, column, n + 1, column + len(value), f"{value}{next(fresh)}"))
            continue
        ending = draw(NEWLINES) if mixed else style
        new = "".join(f"y{next(fresh)} = 0{ending}" for _ in range(draw(st.integers(0, 3))))
        if new and end == len(lines) and lines and not lines[-1].endswith(("\n", "\r")) and draw(st.booleans()):
            new = new.rstrip("\r\n")  # the new last line has no newline either
        edits.append(Edit(start + 1, 1, end + 1, 1, new))
    if len(edits) > 1 and draw(st.booleans()):
        return text, [tuple(edits[:2]), *((e,) for e in edits[2:])]  # one fix of two edits
    return text, [(e,) for e in edits]


@PROPERTY
@given(files_and_fixes())
def test_hunks_from_fixes_are_difflibs(case):
    text, fixes = case
    combined = textedits.combine(text, fixes)
    assert hunks.apply_changes(text, combined.text, combined.changes) == combined.text
    assert textedits.unified_diff("f.py", text, combined.text, combined.changes) == difflib_diff(text, combined.text)


def test_removal_that_needs_a_pass_and_a_crlf_file():
    text = "if a:\r\n    x = 1\r\nif b:\r\n    y = 2\r\nz = 3\r\n"
    combined = textedits.combine(text, [(Edit(2, 1, 3, 1, ""),), (Edit(4, 1, 5, 1, ""),)])
    assert combined.text == "if a:\r\n    pass\r\nif b:\r\n    pass\r\nz = 3\r\n"
    diff = textedits.unified_diff("f.py", text, combined.text, combined.changes)
    assert diff == difflib_diff(text, combined.text)
    assert diff.startswith("--- a/f.py\n+++ b/f.py\n@@ -1,5 +1,5 @@\n")


def test_fix_at_the_end_of_a_file_without_a_newline():
    text = "".join(f"x{i} = {i}\n" for i in range(10)) + "x10 = 10"
    combined = textedits.combine(text, [(Edit(11, 7, 11, 9, "11"),)])
    diff = textedits.unified_diff("f.py", text, combined.text, combined.changes)
    assert diff == difflib_diff(text, combined.text)
    assert diff.endswith("@@ -8,4 +8,4 @@\n x7 = 7\n x8 = 8\n x9 = 9\n-x10 = 10+x10 = 11")


def test_names_in_the_headers_are_escaped():
    diff = textedits.unified_diff("a\x1b.py", "x = 1\n", "x = 2\n", [(4, 5, 4, 5)])
    assert diff.splitlines()[:2] == ["--- a/a\\x1b.py", "+++ b/a\\x1b.py"]


def test_changes_that_do_not_match_the_texts_are_not_trusted():
    before = "".join(f"x{i} = {i}\n" for i in range(20))
    after = before.replace("x5 = 5", "x5 = 50").replace("x15 = 15", "x15 = 150")
    diff = textedits.unified_diff("f.py", before, after, [(0, 1, 0, 1)])
    assert patch(before, diff) == after  # one hunk from the first difference to the last


# -- any text, any changes: the hunks turn one text into the other -------------------------------
def patch(before: str, diff: str) -> str:
    """`before` with `diff`'s hunks applied. A line without a newline (the last of a text) runs
    into the next line of the diff, as in difflib's output: context and removed lines are read
    as the line of `before` they must be, an added one up to its newline."""
    old = split_lines(before, keepends=True)
    out: list[str] = []
    at = 0
    header = "--- a/f.py\n+++ b/f.py\n"
    assert not diff or diff.startswith(header)
    pos = len(header) if diff else 0
    while pos < len(diff):
        match = re.compile(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@\n").match(diff, pos)
        assert match, diff[pos:]
        start = int(match[1]) - (0 if match[2] == "0" else 1)
        assert start >= at
        out += old[at:start]
        at, pos = start, match.end()
        while pos < len(diff) and not diff.startswith("@@ ", pos):
            sign, pos = diff[pos], pos + 1
            if sign in " -":
                assert diff.startswith(old[at], pos), (old[at], diff[pos:])
                line, at = old[at], at + 1
            else:
                assert sign == "+"
                line = split_lines(diff[pos:], keepends=True)[0]
            pos += len(line)
            if sign in " +":
                out.append(line)
    out += old[at:]
    return "".join(out)


@st.composite
def texts_and_changes(draw) -> tuple[str, str, list[hunks.Change]]:
    """A text over a few characters (CR, LF and equal lines often) and changes anywhere in it,
    inside lines and between a CR and an LF included."""
    before = draw(st.text(st.sampled_from("ab\r\n"), max_size=40))
    cuts = sorted(draw(st.lists(st.integers(0, len(before)), max_size=8)))
    pieces, changes, position, shift = [], [], 0, 0
    for start, end in zip(cuts[::2], cuts[1::2], strict=False):
        new = draw(st.text(st.sampled_from("ab\r\n"), max_size=6))
        pieces += [before[position:start], new]
        changes.append((start, end, start + shift, start + shift + len(new)))
        shift += len(new) - (end - start)
        position = end
    pieces.append(before[position:])
    return before, "".join(pieces), changes


@PROPERTY
@given(texts_and_changes())
def test_hunks_of_any_changes_turn_before_into_after(case):
    before, after, changes = case
    diff = hunks.unified_diff(before, after, changes, "a/f.py", "b/f.py")
    assert patch(before, diff) == after
    assert (diff == "") == (split_lines(before, keepends=True) == split_lines(after, keepends=True))


@PROPERTY
@given(texts_and_changes(), st.data())
def test_changes_of_two_steps_compose(case, data):
    before, middle, first = case
    cuts = sorted(data.draw(st.lists(st.integers(0, len(middle)), max_size=6)))
    pieces, second, position, shift = [], [], 0, 0
    for start, end in zip(cuts[::2], cuts[1::2], strict=False):
        new = data.draw(st.text(st.sampled_from("ab\r\n"), max_size=4))
        pieces += [middle[position:start], new]
        second.append((start, end, start + shift, start + shift + len(new)))
        shift += len(new) - (end - start)
        position = end
    after = "".join([*pieces, middle[position:]])
    assert hunks.apply_changes(before, after, hunks.compose(first, second)) == after
