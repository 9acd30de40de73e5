"""Text edits: a fix's CST replacements -> text edits; a file's edits combined, applied, diffed.

Rules describe a fix as CST replacements (LibCST keeps comments and formatting);
the edit is the changed lines between the source and the transformed module, so
one representation serves --fix, --diff and rdjson suggestions.
"""

from __future__ import annotations

import ast
import re
import warnings
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar, cast

import libcst as cst

from ftlint.core.finding import Edit as Edit  # re-exported: a fix's text edits are made here
from ftlint.core.source import split_lines
from ftlint.syntax.hunks import Change as Change  # re-exported: Combined.changes
from ftlint.syntax.hunks import compose as compose


@dataclass
class Replacement:
    """A fix as a CST edit: replace `node` with `new` (a node, a FlattenSentinel, or
    cst.RemovalSentinel.REMOVE); the engine turns it into text edits."""

    node: cst.CSTNode
    new: cst.CSTNode | cst.FlattenSentinel[cst.CSTNode] | cst.RemovalSentinel


_Node = TypeVar("_Node", bound=cst.CSTNode)


class _Replacer(cst.CSTTransformer):
    def __init__(self, replacements: Sequence[Replacement]) -> None:
        super().__init__()
        self.by_node = {id(r.node): r.new for r in replacements}

    def on_leave(
        self, original_node: _Node, updated_node: _Node
    ) -> _Node | cst.RemovalSentinel | cst.FlattenSentinel[_Node]:
        new = self.by_node.get(id(original_node))
        if new is None:
            return updated_node
        # a rule's replacement fits where the node was (LibCST checks it when it generates code)
        return cast("_Node | cst.RemovalSentinel | cst.FlattenSentinel[_Node]", new)


def transform(module: cst.Module, replacements: Sequence[Replacement]) -> str:
    return module.visit(_Replacer(replacements)).code


def fix_edits(text: str, module: cst.Module, replacements: Sequence[Replacement]) -> tuple[Edit, ...]:
    """The edits of one fix on `text` (what `module` was parsed from). LibCST does not
    always give back the text it parsed (a CR-only file loses its last newline): then the
    edits are taken against its own rendering, which must have the same lines."""
    after = transform(module, replacements)
    base = module.code
    if base == text:
        return edits_between(text, after)
    lines = split_lines(text, keepends=True)
    if split_lines(base) != split_lines(text):
        return ()  # no fix rather than one that would change other lines
    edits = []
    for edit in edits_between(base, after):
        if edit.end_line > len(lines) and edit.text and lines and lines[-1] != lines[-1].rstrip("\r\n"):
            ending = lines[-1][len(lines[-1].rstrip("\r\n")) :]
            if not edit.text.endswith(("\r", "\n")):
                edit = Edit(edit.line, edit.column, edit.end_line, edit.end_column, edit.text + ending)
        edits.append(edit)
    return tuple(edits)


def _standalone(nodes: Sequence[cst.CSTNode], indent: str) -> str | None:
    """Statements rendered on their own, each non-blank line indented by `indent`."""
    code = "".join(cst.Module(body=[n]).code for n in nodes)  # type: ignore[list-item]
    return "".join(indent + line if line.strip() else line for line in split_lines(code, keepends=True))


def statement_edits(
    lines: Sequence[str], statement: cst.CSTNode, start_line: int, replacements: Sequence[Replacement]
) -> tuple[Edit, ...] | None:
    """The edits of `replacements` (nodes inside `statement`, a statement of the file that
    starts, after its leading comment lines, on `start_line` of `lines`), rendering only
    that statement: linear in the file's fixes, where `fix_edits` generates the whole
    module per fix. None when the statement does not render alone as the exact text it
    was parsed from (the caller then takes `fix_edits`)."""
    leading = getattr(statement, "leading_lines", ())
    first = start_line - len(leading)
    if first < 1 or start_line > len(lines):
        return None
    line = lines[start_line - 1]
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    try:
        old = _standalone([statement], indent)
    except Exception:  # noqa: BLE001 - a node that renders only in its context
        return None
    if old is None:
        return None
    count = len(split_lines(old, keepends=True))
    if "".join(lines[first - 1 : first - 1 + count]) != old:
        return None
    new = statement.visit(_Replacer(replacements))
    if isinstance(new, cst.RemovalSentinel):
        rendered = ""
    else:
        nodes = list(new.nodes) if isinstance(new, cst.FlattenSentinel) else [new]
        rendered = _standalone(nodes, indent) or ""
    return tuple(shift(e, first - 1) for e in edits_between(old, rendered))


def edits_between(before: str, after: str) -> tuple[Edit, ...]:
    """Whole-line edits that turn `before` into `after` (columns are 1 = line start)."""
    old = split_lines(before, keepends=True)
    new = split_lines(after, keepends=True)
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
    if not lines:
        return edit
    return Edit(
        line=edit.line + lines,
        column=edit.column,
        end_line=edit.end_line + lines,
        end_column=edit.end_column,
        text=edit.text,
    )


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    text: str


@dataclass
class Combined:
    """The text after a file's fixes, which groups (indexes into the groups given) it holds,
    and where the text changed (hunks.Change: what --diff is made from)."""

    text: str
    applied: list[int] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)


def apply_edits(text: str, edit_groups: Iterable[Sequence[Edit]]) -> tuple[str, int]:
    """`combine`, as (new text, how many groups were applied)."""
    combined = combine(text, list(edit_groups))
    return combined.text, len(combined.applied)


def combine(text: str, edit_groups: Sequence[Sequence[Edit]]) -> Combined:
    """Apply a file's fixes together on the exact text they were computed on.

    A group is one finding's fix (all or nothing). Groups are taken in the order of
    their first edit; one that overlaps a group already taken (an insertion at the
    start of another edit counts: the order of the two would be a guess) is left for
    the next run, as ruff does. Blocks the combined removals leave empty get one
    `pass`. The result must parse: otherwise the groups are taken one by one, each
    kept only if the text still parses with it."""
    lines = split_lines(text, keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def offset(line: int, column: int) -> int:
        if line - 1 >= len(lines):
            return len(text)
        return min(offsets[line - 1] + column - 1, len(text))

    spans = [
        [_Span(offset(e.line, e.column), offset(e.end_line, e.end_column), e.text) for e in group]
        for group in edit_groups
    ]
    order = sorted((i for i, group in enumerate(spans) if group), key=lambda i: min((s.start, s.end) for s in spans[i]))
    chosen: list[_Span] = []
    taken: list[int] = []
    for index in order:
        group = spans[index]
        if any(_conflict(a, b) for a in group for b in chosen) or any(
            _conflict(a, b) for i, a in enumerate(group) for b in group[i + 1 :]
        ):
            continue  # overlaps a fix already chosen: the next run picks it up
        chosen.extend(group)
        taken.append(index)
    if not taken:
        return Combined(text)
    marks: list[int] = []
    changes: list[Change] = []
    candidate = _apply(text, chosen, marks, changes)
    if parses(candidate, marks):
        return Combined(candidate, sorted(taken), changes)
    # Something in the combination does not parse: keep what parses, one group at a time.
    kept_spans: list[_Span] = []
    kept: list[int] = []
    result = text
    result_changes: list[Change] = []
    for index in taken:
        marks, changes = [], []
        trial = _apply(text, kept_spans + spans[index], marks, changes)
        if parses(trial, marks):
            kept_spans.extend(spans[index])
            kept.append(index)
            result, result_changes = trial, changes
    return Combined(result, sorted(kept), result_changes)


def _conflict(a: _Span, b: _Span) -> bool:
    if a.start < b.end and b.start < a.end:
        return True
    return a.start == b.start and (a.start == a.end or b.start == b.end)


def _apply(text: str, spans: list[_Span], marks: list[int], changes: list[Change]) -> str:
    """Apply non-conflicting spans, then give every block they emptied one `pass`.
    `marks` gets the offsets in the result where text changed, `changes` the changes."""
    pieces = []
    removed: list[tuple[int, str]] = []  # (offset in the result, text removed there)
    position = 0
    out_length = 0
    for span in sorted(spans, key=lambda s: (s.start, s.end)):
        keep = text[position : span.start]
        pieces.append(keep)
        out_length += len(keep)
        if span.end > span.start:
            removed.append((out_length, text[span.start : span.end]))
        marks.append(out_length)
        pieces.append(span.text)
        changes.append((span.start, span.end, out_length, out_length + len(span.text)))
        out_length += len(span.text)
        marks.append(out_length)
        position = span.end
    pieces.append(text[position:])
    return _fill_empty_blocks("".join(pieces), removed, marks, changes)


_EMPTY_BLOCK = re.compile(r"expected an indented block after .* on line (?P<header>\d+)")


def _fill_empty_blocks(text: str, removed: list[tuple[int, str]], marks: list[int], changes: list[Change]) -> str:
    """Insert `pass` where removals left a block with no statement (each fix adds `pass`
    only when it alone empties a block; together they can empty one none of them did).
    `changes` (from the text before the removals) gets the insertions."""
    from ftlint.core.source import CHUNK_CHARS, top_level_chunks

    if len(text) > CHUNK_CHARS:  # a big file: no Python tree of the whole of it when it parses (issue 23)
        try:
            for _ in top_level_chunks(text):
                pass
            return text
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass  # the whole text below finds the block to fill
    for _ in range(200):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compile(text, "<fixed>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
            return text
        except SyntaxError as err:  # IndentationError included
            match = _EMPTY_BLOCK.match(str(err.msg))
            if match is None or err.lineno is None:
                return text  # another problem: the parse check decides
            lines = split_lines(text, keepends=True)
            header = int(match["header"])
            if not 0 < header <= len(lines):
                return text
            at = min(err.lineno, len(lines) + 1)  # the line where the block was expected
            start = sum(len(line) for line in lines[: at - 1])
            header_start = sum(len(line) for line in lines[: header - 1])
            where, indent = _removed_at(removed, header_start, start)
            if where is not None and (where == 0 or text[where - 1] in "\r\n"):
                start = where  # where the removed statements were (before blank lines and comments after them)
            header_indent = lines[header - 1][: len(lines[header - 1]) - len(lines[header - 1].lstrip(" \t"))]
            if indent is None or len(indent) <= len(header_indent):
                indent = header_indent + ("\t" if "\t" in header_indent else "    ")
            newline = _newline_of(lines[header - 1])
            was = start
            if start == len(text) and text and not text.endswith(("\n", "\r")):
                text += newline
                start = len(text)
            inserted = indent + "pass" + newline
            text = text[:start] + inserted + text[start:]
            changes[:] = compose(changes, [(was, was, was, start + len(inserted))])
            marks[:] = [m + len(inserted) if m >= start else m for m in marks] + [start]
            removed = [(at + len(inserted) if at >= start else at, old) for at, old in removed if at != where]
    return text


def _removed_at(removed: list[tuple[int, str]], low: int, high: int) -> tuple[int | None, str | None]:
    """(offset, indentation) of the first removal between a header and the line where
    its block was expected."""
    for at, old in removed:
        if low < at <= high:
            for line in split_lines(old):
                if line.strip():
                    return at, line[: len(line) - len(line.lstrip(" \t"))]
    return None, None


def _newline_of(line: str) -> str:
    for ending in ("\r\n", "\r", "\n"):
        if line.endswith(ending):
            return ending
    return "\n"


def parses(text: str, marks: Sequence[int] = ()) -> bool:
    """Whether LibCST parses the fixed text. A big file (source.CHUNK_CHARS) is checked in
    top-level chunks: Python's parser on each, LibCST on those that hold a change (`marks`),
    so no tree of the whole file is built (gigabytes for 9 MB: issue 23)."""
    from ftlint.core.source import CHUNK_CHARS, ParseFailure, parse, top_level_chunks

    if len(text) > CHUNK_CHARS:
        try:
            starts = [start for start, _, _ in top_level_chunks(text)] + [len(text)]
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass  # parsed whole below
        else:
            changed = sorted(
                {bisect_right(starts, mark) - 1 for mark in marks}
                | {bisect_right(starts, mark - 1) - 1 for mark in marks if mark}
            )
            return not any(
                isinstance(parse(text[starts[n] : starts[n + 1]]), ParseFailure)
                for n in changed
                if 0 <= n < len(starts) - 1
            )
    return not isinstance(parse(text), ParseFailure)


def unified_diff(path: str, before: str, after: str, changes: Sequence[Change] | None = None) -> str:
    """The fix as a unified diff (difflib.unified_diff's output, made from `changes`, the
    Combined.changes that turn `before` into `after`: hunks.unified_diff); the headers name
    ``path`` escaped as every text output does (a control character or a non-UTF-8 byte in
    a file name is shown as ``\\xNN``)."""
    from ftlint.core.names import escape_path
    from ftlint.syntax import hunks

    name = escape_path(path)
    return hunks.unified_diff(before, after, changes, f"a/{name}", f"b/{name}")
