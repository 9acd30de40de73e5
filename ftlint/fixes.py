"""Fixes: CST replacements -> text edits -> fixed source.

Rules describe a fix as CST replacements (LibCST keeps comments and formatting);
the edit is the changed lines between the source and the transformed module, so
one representation serves --fix, --diff and rdjson suggestions.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import libcst as cst

from ftlint.finding import Edit
from ftlint.rule import Replacement


class _Replacer(cst.CSTTransformer):
    def __init__(self, replacements: Sequence[Replacement]) -> None:
        super().__init__()
        self.by_node = {id(r.node): r.new for r in replacements}

    def on_leave(self, original_node, updated_node):
        new = self.by_node.get(id(original_node))
        return updated_node if new is None else new


def transform(module: cst.Module, replacements: Sequence[Replacement]) -> str:
    return module.visit(_Replacer(replacements)).code


def edits_between(before: str, after: str) -> tuple[Edit, ...]:
    """Whole-line edits that turn `before` into `after` (columns are 1 = line start)."""
    old = before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    edits = []
    import difflib  # imported when a finding has a fix, not on every run

    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        edits.append(Edit(line=i1 + 1, column=1, end_line=i2 + 1, end_column=1, text="".join(new[j1:j2])))
    return tuple(edits)


def shift(edit: Edit, lines: int) -> Edit:
    """The same edit `lines` further down (an edit computed on a function parsed alone)."""
    return Edit(
        line=edit.line + lines, column=edit.column, end_line=edit.end_line + lines, end_column=edit.end_column, text=edit.text
    )


def apply_edits(text: str, edit_groups: Iterable[Sequence[Edit]]) -> tuple[str, int]:
    """Apply non-overlapping groups of edits (a group is one finding's fix, all or nothing).
    Returns the new text and how many groups were applied."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def offset(line: int, column: int) -> int:
        if line - 1 >= len(lines):
            return len(text)
        return offsets[line - 1] + column - 1

    chosen: list[tuple[int, int, str]] = []
    applied = 0
    for group in edit_groups:
        spans = [(offset(e.line, e.column), offset(e.end_line, e.end_column), e.text) for e in group]
        if any(not (end <= s or start >= e) or (start == s == end == e) for start, end, _ in spans for s, e, _ in chosen):
            continue  # overlaps a fix already chosen: the next run picks it up
        chosen.extend(spans)
        applied += 1
    for start, end, new in sorted(chosen, key=lambda span: span[0], reverse=True):
        text = text[:start] + new + text[end:]
    return text, applied


def unified_diff(path: str, before: str, after: str) -> str:
    import difflib

    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{path}", f"b/{path}"
        )
    )
