"""A module's outline (functions, classes, imports) from Python's own parser, and the
LibCST tree of one outermost function at a time, parsed when a body is first asked for.

Rules report only in fault-path code, and the fault path needs only what its functions
do: `ftlint check engine_core_sentinel.py` reaches four functions of a 3,900-line
scheduler.py, whose LibCST parse alone costs more than the whole single-file budget
(issue 5). `ast.parse` gives the same outline about ten times faster, and LibCST then
parses only the functions the fault path reaches, in helper files and in the linted
file alike (lint_runner.py shifts positions and fix edits back to the file's lines). The
outline follows the LibCST indexer in project.py rule for rule; a file Python's parser
rejects (newer syntax than this Python, a syntax error) or that is too deeply nested is
parsed whole with LibCST instead, so it behaves as before. Project decides which files
are outlined (FileLinter: not `fault-paths` files, nor --exhaustive runs, nor when a rule
asks for the whole module or a metadata provider).

An outline is first written down as plain data (outline_ops: JSON-able lists) and then
replayed into a ModuleInfo (project.replay), so the result cache can keep it (OutlineStore)
and the forked project scan (which never imports LibCST) can make it for the parent. What
this module keeps of an outlined module (each function's lines and parsed segment, the
split lines, the layout) is one Outline, ModuleInfo.outline: the index's Function and
ModuleInfo hold none of it, and callers ask neutral queries (Function.tree, line_range,
ModuleInfo.trees) that serve modules parsed whole alike.

This module sits below project.py and never imports it, not even for annotations: an Outline
keys functions by whatever the index gives it (project.Function), and reads nothing of them.
project.function_node and project.carry_over put the trees parsed here on the index's
objects, and the index parses a file whole when a function's lines cannot be parsed alone.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from ftlint.core.cache import Cache, code_fingerprint
from ftlint.core.digests import blake2b, digest

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

#: what an Outline keys its functions by (project.Function: by identity); this module never
#: reads one, so it needs no import of the index (which imports it)
Fn = TypeVar("Fn", bound=Hashable)

#: an outline written down as plain data: [kind, ...] lists (JSON as they are; see _Outliner)
OutlineOps = list[list[Any]]

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")  # lines as Python numbers them


def well_formed(ops: object, text: str) -> bool:
    """Whether stored outline ops have the shape outline_ops writes (the cache checks an
    outline before it is replayed): known ops with fields of their types, function lines
    within the text, every class and function closed."""
    if ops is False:
        return True
    if type(ops) is not list:
        return False
    lines = text.count("\n") + text.count("\r") + 1  # at least the lines Python counts
    depth = 0
    for op in ops:
        if type(op) is not list or not op:
            return False
        kind, size = op[0], len(op)
        if kind == END_OP and size == 1:
            depth -= 1
            if depth < 0:
                return False
        elif kind == FUNCTION_OP and size == 6:
            _, name, params, decorators, first, last = op
            if not (
                type(name) is str
                and type(params) is list
                and all(type(p) is str for p in params)
                and type(decorators) is list
                and all(d is None or type(d) is str for d in decorators)
                and type(first) is int
                and type(last) is int
                and 1 <= first <= last <= lines
            ):
                return False
            depth += 1
        elif kind == CLASS_OP and size == 3:
            if not (type(op[1]) is str and type(op[2]) is list and all(type(b) is str for b in op[2])):
                return False
            depth += 1
        elif kind == IMPORT_OP and size == 3:
            if not (type(op[1]) is str and (op[2] is None or type(op[2]) is str)):
                return False
        elif kind == FROM_OP and size == 5:
            _, bound, module, name, level = op
            if not (
                type(bound) is str and type(module) is str and type(name) is str and type(level) is int and level >= 0
            ):
                return False
        else:
            return False
    return depth == 0


class OutlineStore:
    """Outlines (outline_ops) by text: those made in this run (the forked scan
    outlines the files given while the parent imports LibCST) and, with a cache, those
    of earlier runs, keyed by a digest of the text, the Python version (its parser makes
    the outline) and ftlint's code fingerprint."""

    def __init__(self, cache: Cache | None = None) -> None:
        self.cache = cache
        self._known: dict[str, OutlineOps | Literal[False]] = {}
        self._salt = digest(code_fingerprint(), sys.version_info[:3]).encode()[:64] if cache is not None else b""

    def _key(self, text: str) -> str:
        return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20, key=self._salt).hexdigest()

    def load(self, text: str) -> OutlineOps | Literal[False] | None:
        ops = self._known.get(text)
        if ops is None and self.cache is not None:
            ops = self.cache.load_outline(self._key(text))
            if ops is not None and not well_formed(ops, text):
                return None
        return ops

    def save(self, text: str, ops: OutlineOps | Literal[False]) -> None:
        """Keep an outline this process made (and write it to the cache)."""
        self._known[text] = ops
        if self.cache is not None:
            self.cache.save_outline(self._key(text), ops)

    def remember(self, text: str, ops: OutlineOps | Literal[False]) -> None:
        """Keep an outline made elsewhere in this run (written to the cache there)."""
        self._known[text] = ops


def outline_ops(text: str, *, check_nesting: bool = True, keep_tree: bool = False) -> OutlineOps | Literal[False]:
    """The outline as plain data (what project.replay builds a ModuleInfo from, and what the
    cache keeps), or False when Python's parser cannot read the text or (`check_nesting`)
    it nests deeper than LibCST parses safely (source.nesting_failure). The cyclic garbage
    collector is paused meanwhile: Python's tree holds no cycles, and its collections
    would scan every object the process holds once per few hundred nodes made (a
    language server's whole project: the cost of an edit would grow with it). With
    `keep_tree`, Python's tree of the text is kept until the next such call (parsed_tree)."""
    import gc

    if not gc.isenabled():
        return _outline_ops(text, check_nesting, keep_tree)
    gc.disable()
    try:
        return _outline_ops(text, check_nesting, keep_tree)
    finally:
        gc.enable()


#: a module's bytes -> its outline, made from the tree the step scan parsed to confirm the
#: module's step guards (step_scan.guarded_functions), and whether it nests too deep
#: (source.nesting_failure, read from that tree; None: not known): such a module is
#: outlined next, and its second parse (and the nesting check's, which parses a big
#: module again) was the costliest of a cold run's outlines (vLLM's engine core)
_SCANNED: dict[bytes, tuple[OutlineOps, bool | None]] = {}
_SCANNED_MAX = 64


def keep_scanned(data: bytes, tree: ast.Module) -> None:
    """Keep the outline of a module whose tree was parsed from these bytes, and whether
    the module nests too deep."""
    from ftlint.core.source import nesting_failure

    ops: OutlineOps = []
    _Outliner(ops).walk(tree.body)
    try:
        deep: bool | None = nesting_failure(data.decode("utf-8"), tree) is not None
    except UnicodeDecodeError:
        deep = None
    keep_outlines([(data, (ops, deep))])


#: the last text the language server's outline (chunked_outline_ops, a file too small to
#: chunk) parsed whole, with Python's tree of it: the step scan of the same text (the edited
#: file's guards: analysis.steps.StepGuards) reads that tree instead of parsing it again
_LAST_TREE: tuple[str, ast.Module] | None = None


def parsed_tree(text: str) -> ast.Module | None:
    """Python's tree of `text` when the outliner was the last to parse it whole, else None."""
    last = _LAST_TREE
    return last[1] if last is not None and (last[0] is text or last[0] == text) else None


def scanned_outline(data: bytes) -> tuple[OutlineOps, bool | None] | None:
    """keep_scanned's outline of these bytes and whether they nest too deep, left in place."""
    return _SCANNED.get(data)


def scanned_outlines() -> list[tuple[bytes, tuple[OutlineOps, bool | None]]]:
    """The outlines keep_scanned holds (a scan forked off sends its child's back)."""
    return list(_SCANNED.items())


def keep_outlines(outlines: list[tuple[bytes, tuple[OutlineOps, bool | None]]]) -> None:
    """Keep these outlines of scanned bytes (keep_scanned's, or another process's), the
    oldest dropped past _SCANNED_MAX."""
    for data, ops in outlines:
        if len(_SCANNED) >= _SCANNED_MAX:
            del _SCANNED[next(iter(_SCANNED))]
        _SCANNED[data] = ops


def _outline_ops(text: str, check_nesting: bool, keep_tree: bool) -> OutlineOps | Literal[False]:
    from ftlint.core.source import CHUNK_CHARS, nesting_failure, top_level_chunks

    if _SCANNED:
        scanned = _SCANNED.pop(text.encode("utf-8", "surrogatepass"), None)
        if scanned is not None:
            kept, deep = scanned
            if check_nesting and (deep if deep is not None else nesting_failure(text) is not None):
                return False  # as below
            return kept
    if check_nesting and nesting_failure(text) is not None:
        return False  # parsed whole, which reports it (FT000 "too deeply nested") as before
    ops: OutlineOps = []
    if len(text) > CHUNK_CHARS:  # a big file: Python's tree of one chunk at a time (issue 23)
        try:
            for _, line, chunk in top_level_chunks(text):
                _Outliner(ops, line - 1).walk(chunk.body)
            return ops
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            ops = []  # parsed whole below, as before
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings of the code are not ours to print
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    if keep_tree:
        global _LAST_TREE
        _LAST_TREE = (text, tree)
    _Outliner(ops).walk(tree.body)
    return ops


@dataclass(eq=False)
class Chunked:
    """A big file's outline kept per top-level chunk (source.top_level_chunks), so the
    next version of the file re-outlines only the chunks an edit touched (issue 24):
    `text` and, per chunk, (start offset, first line, ops with lines counted from the
    chunk's first line)."""

    text: str
    chunks: list[tuple[int, int, OutlineOps]]

    def ops(self) -> OutlineOps:
        """The whole file's outline ops (what outline_ops gives for `text`)."""
        ops: OutlineOps = []
        for _, line, chunk_ops in self.chunks:
            shift = line - 1
            if not shift:
                ops.extend(chunk_ops)
                continue
            for op in chunk_ops:
                ops.append([*op[:4], op[4] + shift, op[5] + shift] if op[0] == FUNCTION_OP else op)
        return ops


def chunked_outline_ops(
    text: str, previous: Chunked | None = None
) -> tuple[OutlineOps | Literal[False], Chunked | None]:
    """outline_ops(text) and, for a big file outlined in chunks, its Chunked (else None).
    With `previous` (the Chunked of the file's version before an edit), the chunks wholly
    before and after the edited span are reused (those after shifted by the lines the edit
    added or removed) and only the chunks in between are parsed again; when those do not
    parse alone, the whole text is outlined as outline_ops does."""
    import gc

    from ftlint.core.source import CHUNK_CHARS, nesting_failure

    if len(text) <= CHUNK_CHARS:
        return outline_ops(text, keep_tree=True), None
    enabled = gc.isenabled()
    gc.disable()  # as outline_ops: Python's tree holds no cycles
    try:
        chunked = _rechunk(previous, text) if previous is not None else None
        if chunked is None:
            if nesting_failure(text) is not None:
                return False, None
            chunks = _chunk(text, 0, 1)
            chunked = Chunked(text, chunks) if chunks is not None else None
    finally:
        if enabled:
            gc.enable()
    if chunked is None:
        return outline_ops(text), None
    return chunked.ops(), chunked


def _chunk(text: str, start: int, line: int) -> list[tuple[int, int, OutlineOps]] | None:
    """The chunks of `text` (a piece of the file at offset `start`, line `line`), each
    outlined alone; None when the text does not parse in chunks."""
    from ftlint.core.source import top_level_chunks

    chunks: list[tuple[int, int, OutlineOps]] = []
    try:
        for offset, first, tree in top_level_chunks(text):
            ops: OutlineOps = []
            _Outliner(ops).walk(tree.body)
            chunks.append((start + offset, line + first - 1, ops))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return chunks


def _line_count(text: str) -> int:
    return text.count("\n") + text.count("\r") - text.count("\r\n")


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix (bisected on slices: C-speed compares)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(a: str, b: str, limit: int) -> int:
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle : len(a) - low] == b[len(b) - middle : len(b) - low]:
            low = middle
        else:
            high = middle - 1
    return low


def _rechunk(previous: Chunked, text: str) -> Chunked | None:
    """`text` outlined from the chunks of `previous` it shares (see chunked_outline_ops).
    Only the text re-outlined is checked for nesting too deep (source.nesting_failure):
    the chunks kept passed it, and what it measures (brackets, string runs, elif chains,
    logical lines, statements) never spans a chunk's edge, a top-level `def`, `class` or
    decorator line."""
    from ftlint.core.source import nesting_failure

    old, old_chunks = previous.text, previous.chunks
    if old == text:
        return Chunked(text, old_chunks)
    prefix = _common_prefix(old, text)
    suffix = _common_suffix(old, text, min(len(old), len(text)) - prefix)
    ends = [start for start, _, _ in old_chunks[1:]] + [len(old)]
    first = 0  # the first chunk the edit touches: the chunks before lie wholly in the prefix
    while ends[first] <= prefix and ends[first] < len(old):  # not the last: the file's end may move
        first += 1
    last = first  # the first chunk after the edit: it and those after lie wholly in the suffix
    while last < len(old_chunks) and old_chunks[last][0] < len(old) - suffix:
        last += 1
    delta = len(text) - len(old)
    start = old_chunks[first][0]
    end = old_chunks[last][0] + delta if last < len(old_chunks) else len(text)
    if (
        end < start
        or (start and text[start - 1] == "\r" and text[start : start + 1] == "\n")
        or (0 < end < len(text) and text[end - 1] not in "\r\n")
    ):
        return None  # a chunk's edge no longer at a line's start, or a \r\n made across it
    line = old_chunks[first][1]
    middle = text[start:end]
    if nesting_failure(middle) is not None:
        return None  # the whole text is checked (and outlined) as a first version is
    redone = _chunk(middle, start, line) if middle else []
    if redone is None:
        return None
    shift = _line_count(middle) - _line_count(old[start : end - delta])
    after = [(offset + delta, first_line + shift, ops) for offset, first_line, ops in old_chunks[last:]]
    return Chunked(text, [*old_chunks[:first], *redone, *after])


def dotted(node: ast.expr) -> str | None:
    """ir.dotted_name for an ast expression: `a.b.c`, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def ast_callee_ref(func: ast.expr) -> tuple[str, str] | None:
    """ir.callee_ref for an ast expression: how a call names its target."""
    if isinstance(func, ast.Name):
        return ("name", func.id)
    if isinstance(func, ast.Attribute):
        base = func.value
        if isinstance(base, ast.Name) and base.id in ("self", "cls"):
            return ("self", func.attr)
        if _is_own_class(base):  # `type(self).m()`, `self.__class__.m()`
            return ("self", func.attr)
        if isinstance(base, ast.Call) and isinstance(base.func, ast.Name) and base.func.id == "super":
            return ("super", func.attr)
        name = dotted(func)
        if name:
            return ("dotted", name)
    return None


def _is_own_class(node: ast.expr) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr == "__class__" and isinstance(node.value, ast.Name) and node.value.id == "self"
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "type"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == "self"
    )


_FUNCTION = (ast.FunctionDef, ast.AsyncFunctionDef)
_SUITES = ("body", "orelse", "finalbody")
# outline ops: [kind, ...] lists (JSON as they are)
CLASS_OP, FUNCTION_OP, END_OP, IMPORT_OP, FROM_OP = "c", "f", "e", "i", "r"


class _Outliner:
    """project._Indexer over an ast tree, written down as ops: the same functions,
    classes and imports, in the same order."""

    def __init__(self, ops: OutlineOps, shift: int = 0) -> None:
        self.ops = ops
        self.shift = shift  # lines before the chunk walked (source.top_level_chunks)
        self.depth = 0  # open classes and functions (imports count at module level only)

    def walk(self, statements: list[ast.stmt]) -> None:
        ops = self.ops
        for statement in statements:
            if isinstance(statement, _FUNCTION):
                args = statement.args
                first = min([statement.lineno, *(d.lineno for d in statement.decorator_list)])
                ops.append(
                    [
                        FUNCTION_OP,
                        statement.name,
                        [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)],
                        sorted({dotted(d) for d in statement.decorator_list}, key=str),
                        first + self.shift,
                        (statement.end_lineno or statement.lineno) + self.shift,
                    ]
                )
                self._inside(statement.body)
            elif isinstance(statement, ast.ClassDef):
                ops.append([CLASS_OP, statement.name, [b for b in map(dotted, statement.bases) if b]])
                self._inside(statement.body)
            elif isinstance(statement, ast.Import):
                if not self.depth:
                    ops.extend([IMPORT_OP, alias.name, alias.asname] for alias in statement.names)
            elif isinstance(statement, ast.ImportFrom):
                if not self.depth:
                    for alias in statement.names:
                        if alias.name == "*":
                            break
                        ops.append(
                            [FROM_OP, alias.asname or alias.name, statement.module or "", alias.name, statement.level]
                        )
            else:
                for attr in _SUITES:
                    self.walk(getattr(statement, attr, None) or [])
                for handler in getattr(statement, "handlers", ()):
                    self.walk(handler.body)
                for case in getattr(statement, "cases", ()):
                    self.walk(case.body)

    def _inside(self, body: list[ast.stmt]) -> None:
        self.depth += 1
        self.walk(body)
        self.depth -= 1
        self.ops.append([END_OP])


@dataclass(eq=False)
class Segment:
    """The lines of one outermost function, parsed alone: `text` is what LibCST parsed
    (inside `if 1:` when indented); its line n is line n + `line_offset` of the file."""

    module: cst.Module
    text: str
    line_offset: int


@dataclass(eq=False)
class Outline(Generic[Fn]):
    """What the outliner keeps of one outlined module (ModuleInfo.outline), so the index's
    data model holds none of it: each function's lines (from the outline ops), the Segment
    its node was parsed in (once asked), and the file's lines and layout (split and
    detected when a first function is parsed). Functions key the dicts by identity (eq=False)."""

    text: str
    spans: dict[Fn, tuple[int, int]] = field(default_factory=dict)  # (first line, last line)
    segments: dict[Fn, Segment] = field(default_factory=dict)
    _lines: list[str] | None = None
    _layout: tuple[str, str] | None = None
    _units: tuple[int, dict[Fn, tuple[Fn, list[Fn]]]] | None = None
    _frame: str | None = None
    _grouped: tuple[int, dict[Fn, list[Fn]]] | None = None  # units(): (functions then, units)

    def span(self, fn: Fn) -> tuple[int, int]:
        """(first line, last line) of `fn` in the file, its decorators included."""
        return self.spans[fn]

    def segment(self, fn: Fn) -> Segment | None:
        """The tree `fn`'s node lies in; None until it is parsed (or when it came from the
        whole file: project.function_from_whole_file)."""
        return self.segments.get(fn)

    def unit_of(self, fn: Fn) -> tuple[Fn, list[Fn]]:
        """`fn`'s outermost function and the functions within its lines (itself first), in
        module order: from units(), made once (not a scan of every function per function)."""
        if self._units is None or self._units[0] != len(self.spans):
            grouped = units(self)
            self._units = (len(self.spans), {f: (outer, inner) for outer, inner in grouped.items() for f in inner})
        return self._units[1][fn]

    def trees(self) -> list[Segment]:
        """The parsed segments, each once, in file order (ModuleInfo.trees)."""
        seen: dict[int, Segment] = {}
        for fn in self.spans:  # the module's functions, in its order
            segment = self.segments.get(fn)
            if segment is not None:
                seen.setdefault(id(segment), segment)
        return sorted(seen.values(), key=lambda segment: segment.line_offset)

    def lines(self) -> list[str]:
        """The text split as Python numbers lines."""
        if self._lines is None:
            self._lines = _LINE.findall(self.text)
        return self._lines

    def text_of(self, fn: Fn) -> str:
        """The lines of `fn` as written."""
        first, last = self.spans[fn]
        return "".join(self.lines()[first - 1 : last])

    def frame(self) -> str:
        """The text with each outermost function (decorators included) replaced by a `pass`
        at its indentation: what the module holds outside its functions (imports,
        module-level assignments, class headers), still Python, made once per outline."""
        if self._frame is None:
            lines = self.lines()
            spans = sorted(self.spans[outer] for outer in units(self))
            kept: list[str] = []
            line = 1
            for first, last in spans:
                if first < line:  # within one already cut (cannot happen for outermost ones)
                    continue
                kept.extend(lines[line - 1 : first - 1])
                head = lines[first - 1] if first <= len(lines) else ""
                kept.append(head[: len(head) - len(head.lstrip(" \t"))] + "pass\n")
                line = last + 1
            kept.extend(lines[line - 1 :])
            self._frame = "".join(kept)
        return self._frame

    def layout(self) -> tuple[str, str]:
        """The file's default newline and indent as LibCST detects them: its first line
        ending, and the whitespace of its first indented block."""
        if self._layout is None:
            match = re.search(r"\r\n?|\n", self.text)
            newline = match.group(0) if match else "\n"
            indent = "    "
            try:
                for token in tokenize.generate_tokens(io.StringIO(self.text).readline):
                    if token.type == tokenize.INDENT:
                        indent = token.string
                        break
            except (tokenize.TokenError, SyntaxError, ValueError):
                pass
            self._layout = (newline, indent)
        return self._layout


def _within(inner: tuple[int, int], outer: tuple[int, int]) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def units(outlined: Outline[Fn]) -> dict[Fn, list[Fn]]:
    """Each outermost function -> the functions within its lines (itself first), in
    module order: one sorted interval walk (O(functions log functions)), not a scan of
    every function for every function (issue 24); made once per outline (kept while its
    functions are the same)."""
    kept = outlined._grouped
    if kept is not None and kept[0] == len(outlined.spans):
        return kept[1]
    order = sorted(outlined.spans.items(), key=lambda item: (item[1][0], -item[1][1]))
    grouped: dict[Fn, list[Fn]] = {}
    outer: Fn | None = None
    outer_span = (0, -1)
    for fn, span in order:
        if outer is not None and _within(span, outer_span):
            grouped[outer].append(fn)
        else:
            outer, outer_span = fn, span
            grouped[fn] = [fn]
    position = {fn: n for n, fn in enumerate(outlined.spans)}
    for within in grouped.values():
        within.sort(key=position.__getitem__)
    outlined._grouped = (len(outlined.spans), grouped)
    return grouped


def parse_unit(fn: Fn, name: str, outlined: Outline[Fn]) -> tuple[Segment, list[cst.FunctionDef]] | None:
    """The lines of the outermost function `fn` (named `name`) parsed alone: its Segment and
    the FunctionDefs in it (itself first, in the order project._Indexer meets them); None
    when LibCST rejects those lines or they hold no function of that name."""
    import libcst as cst  # not at the top: the forked scan outlines without LibCST

    from ftlint.core.source import parse

    first, _ = outlined.span(fn)
    text = outlined.text_of(fn)
    newline, indent = outlined.layout()
    # Indented lines go inside `if 1:` blocks, one per indent level when the indentation
    # is whole levels of the file's indent, so LibCST detects the same default newline
    # and indent as on the whole file (new lines a fix adds use them).
    whitespace = text[: len(text) - len(text.lstrip(" \t\x0c"))]
    levels = 0
    if whitespace:
        levels = (
            len(whitespace) // len(indent) if indent and whitespace == indent * (len(whitespace) // len(indent)) else 0
        )
        wrapper = "".join(indent * i + "if 1:" + newline for i in range(levels)) if levels else "if 1:" + newline
        levels = levels or 1
        text = wrapper + text
    module = parse(text)
    if not isinstance(module, cst.Module) or not module.body:
        return None
    node: cst.CSTNode | None = module.body[0]
    for _ in range(levels):
        node = node.body.body[0] if isinstance(node, cst.If) and node.body.body else None
    if not isinstance(node, cst.FunctionDef) or node.name.value != name:
        return None
    found: list[cst.FunctionDef] = []
    _function_defs([node], found)
    return Segment(module, text, first - 1 - levels), found


def _function_defs(statements: Sequence[cst.CSTNode], found: list[cst.FunctionDef]) -> None:
    """FunctionDefs in the order project._Indexer meets them (definitions are statements)."""
    import libcst as cst  # not at the top: the forked scan outlines without LibCST

    for statement in statements:
        if isinstance(statement, cst.FunctionDef):
            found.append(statement)
            _function_defs(statements_in(statement.body), found)
        elif isinstance(statement, cst.ClassDef):
            _function_defs(statements_in(statement.body), found)
        elif not isinstance(statement, (cst.SimpleStatementLine, cst.BaseSmallStatement)):
            for suite in suites_of(statement):
                _function_defs(statements_in(suite), found)


# -- walking LibCST statements (shared with project._Indexer: the same rules) -------------
def statements_in(suite: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """The statements of a block (IndentedBlock, SimpleStatementSuite); () for anything else."""
    body = getattr(suite, "body", ())
    return body if isinstance(body, (list, tuple)) else ()


def suites_of(statement: cst.CSTNode) -> list[cst.CSTNode]:
    """The blocks nested in a compound statement (if/elif/else, loops, try, with, match)."""
    import libcst as cst  # not at the top: the forked scan outlines without LibCST

    suites = []
    body = getattr(statement, "body", None)
    if body is not None:
        suites.append(body)
    for attr in ("orelse", "finalbody"):
        part = getattr(statement, attr, None)
        while isinstance(part, cst.If):  # elif chain
            suites.append(part.body)
            part = part.orelse
        if part is not None:
            suites.append(part.body)
    for handler in getattr(statement, "handlers", ()):
        suites.append(handler.body)
    for case in getattr(statement, "cases", ()):
        suites.append(case.body)
    return suites
