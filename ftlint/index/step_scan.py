"""Which functions guard an engine step, read with Python's `ast` (C speed, no LibCST).

A step guard is an `except` branch, catching a failure, of a `try` whose body calls an
engine step (ftlint.analysis.steps walks it as a handler's body). This module finds them
for a whole file at once: the prefilter confirms a file with it before the file is
outlined, and the analysis picks the branches out of the LibCST tree by their place (the
n-th `try` statement of the function, in source order), so LibCST never walks an
expression to find them. Where `ast` cannot parse a file it says so (None), and the
analysis walks the LibCST tree instead (same definition, see steps.py).
"""

from __future__ import annotations

import ast
import bisect
import re
import warnings
from collections.abc import Callable, Iterator, Sequence

#: exceptions that are not a step's failure: a branch catching only these is no fault path
NOT_FAILURES = frozenset(
    {"SystemExit", "KeyboardInterrupt", "GeneratorExit", "StopIteration", "StopAsyncIteration", "CancelledError"}
)

_TRY = (ast.Try, ast.TryStar)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SKIPPED = (*_DEFS, ast.ClassDef, ast.Lambda)

#: qualified name -> the guards of each function of that name: (n-th `try` statement of the
#: function in source order, indices of its branches that catch a failure)
Guards = dict[str, list[tuple[tuple[int, tuple[int, ...]], ...]]]


#: (steps, file bytes) -> what guarded_functions found there, or {} when the file's `try`
#: statements read alone showed no guard (prefilter.StepCalls.cleared), for the last files
#: read: the prefilter confirms a file with `ast` and the analysis asks again for the same
#: bytes (analysis.steps.StepGuards), which then costs no second parse
_FOUND: dict[tuple[tuple[str, ...], bytes], Guards | None] = {}
_FOUND_MAX = 64


def guarded_functions(
    source: str | bytes, is_step: Callable[[str], bool], steps: tuple[str, ...] | None = None
) -> Guards | None:
    """The functions holding a step guard, by qualified name as ftlint.index.project spells
    it (`Class.method`, `outer.<locals>.inner`); None when `ast` cannot parse the source.
    With `steps` (the globs `is_step` tests) and bytes, the answer is kept for `known`."""
    from ftlint.index import outline

    tree = outline.parsed_tree(source) if isinstance(source, str) else None
    if tree is None:
        tree = _parse(source)
    if tree is None:
        found: Guards | None = None
    else:
        found = {}
        _Walker(is_step, found).body(tree.body, [])
        if found and steps is not None and isinstance(source, bytes):  # the prefilter's: outlined next
            outline.keep_scanned(source, tree)
        del tree
    if steps is not None and isinstance(source, bytes):
        keep_found(steps, source, found)
    return found


#: a `try` keyword whole: no identifier byte follows it
_AFTER_KEYWORD = re.compile(rb"[\w\x80-\xff]")
#: a coding cookie in the first two lines: the bytes cannot be decoded alone
_COOKIE_HEAD = re.compile(rb"(?:[^\n]*\n)?[ \t\f]*#[^\n]*coding[:=]")
_ENDS: dict[int, re.Pattern[bytes]] = {}
#: the function a `try` statement's own lines are parsed in
WINDOW_HEAD = "def _(self):\n"


def _try_end(indent: int) -> re.Pattern[bytes]:
    """The line ending a `try` header at this indentation: the next one indented no deeper
    that is not blank, a comment, or one of its `except`/`else`/`finally` clauses."""
    end = _ENDS.get(indent)
    if end is None:
        clause = rb"(?! {%d}(?:except|else|finally)(?![\w\x80-\xff]))" % indent
        end = _ENDS[indent] = re.compile(rb"\n(?= {0,%d}[^ \r\n#])" % indent + clause)
    return end


def outside_guards(data: bytes, before: int, is_step: Callable[[str], bool], calls: Sequence[int] = ()) -> bool:
    """True when no `try` statement starting before `before` guards a step: each `try`
    header indented at the start of a line is parsed alone, from its line to the next line
    indented no deeper (its clauses aside), inside a function; False when that cannot show
    it (a window Python cannot parse, a guard found in one: the whole file decides).
    `calls`: where step calls start, in order (prefilter.StepCalls): the windows holding
    one are read first, so a file with a guard is known for one at the cost of a parse or
    two (the others are read after, each of them still: a window that does not parse
    decides).

    Exact, never True for bytes holding a guard there: a guard is a `try` in a function,
    so indented, and its header starts a line. Parsed from that line (a statement's start),
    the window is the statement when the line ending it is code; when that line is inside a
    string or brackets opened in the statement, the window ends inside them and does not
    parse. Headers inside strings or comments only cost a parse. Every header is read on
    its own: a window that parses from a header inside a string may swallow a real `try`
    into a string of its own."""
    if _unreadable_indentation(data):
        return False
    windows = []
    for start, indent in _indented_try_headers(data, before):
        ending = _try_end(indent).search(data, start + indent + 3)
        windows.append((start, ending.start() + 1 if ending is not None else len(data)))
    if calls:
        windows.sort(key=lambda window: bisect.bisect_left(calls, window[0]) == bisect.bisect_left(calls, window[1]))
    for start, end in windows:
        tree = _parse(WINDOW_HEAD.encode() + data[start:end])
        if tree is None:
            return False
        found: Guards = {}
        _Walker(is_step, found).body(tree.body, [])
        if found:
            return False
    return True


def _unreadable_indentation(data: bytes) -> bool:
    """Whether a line's indentation is unreadable in bytes (a tab or form feed in it:
    Python's own tab stops; a lone carriage return ends a line) or the bytes cannot be
    decoded alone (a coding cookie). Each test finds its byte at memchr speed first."""
    if data.count(b"\r") != data.count(b"\r\n"):
        return True
    for blank in (b"\t", b"\f"):
        at = data.find(blank)
        while at != -1:
            line_start = data.rfind(b"\n", 0, at) + 1
            if data.count(b" ", line_start, at) == at - line_start:
                return True
            at = data.find(blank, at + 1)
    return _COOKIE_HEAD.match(data) is not None


def _indented_try_headers(data: bytes, before: int) -> Iterator[tuple[int, int]]:
    """(where its line starts, its indentation) of each `try` header indented with spaces
    at the start of a line, the keyword ending by `before` (bytes.find, then the line)."""
    at = data.find(b"try", 1, before)
    while at != -1:
        if data[at - 1] == 0x20 and _AFTER_KEYWORD.match(data, at + 3, before) is None:
            line_start = data.rfind(b"\n", 0, at) + 1
            if data.count(b" ", line_start, at) == at - line_start:
                yield line_start, at - line_start
        at = data.find(b"try", at + 3, before)


def _parse(source: str | bytes) -> ast.Module | None:
    """Python's tree of the source, None when it cannot parse it (its SyntaxWarnings are
    the code's, not ftlint's to print)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None


def keep_found(steps: tuple[str, ...], data: bytes, found: Guards | None) -> None:
    """Keep what was learnt of these bytes' step guards (see _FOUND)."""
    if len(_FOUND) >= _FOUND_MAX:
        del _FOUND[next(iter(_FOUND))]
    _FOUND[steps, data] = found


def found_items() -> list[tuple[tuple[tuple[str, ...], bytes], Guards | None]]:
    """What _FOUND holds (a scan forked off sends its child's back)."""
    return list(_FOUND.items())


def known(data: bytes, steps: tuple[str, ...]) -> tuple[bool, Guards | None]:
    """(True, what guarded_functions found) when it read these bytes for these steps lately,
    else (False, None)."""
    key = (steps, data)
    if key in _FOUND:
        return True, _FOUND[key]
    return False, None


def catches_failure(kind: ast.expr | None) -> bool:
    if kind is None:
        return True
    for element in kind.elts if isinstance(kind, ast.Tuple) else [kind]:
        if _name_of(element) not in NOT_FAILURES:
            return True
    return False


def _name_of(node: ast.expr) -> str | None:
    """The called or caught name: a plain name, or the last component of a dotted one."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


class _Walker:
    def __init__(self, is_step: Callable[[str], bool], found: Guards) -> None:
        self.is_step = is_step
        self.found = found

    def body(self, statements: list[ast.stmt], scopes: list[tuple[str, str]]) -> None:
        """`scopes`: the open (kind, name) scopes, "def" or "class", outermost first."""
        for statement in statements:
            if isinstance(statement, _DEFS):
                inner = [*scopes, ("def", statement.name)]
                guards = tuple(self._guards(statement))
                if guards:
                    self.found.setdefault(_qualname(inner), []).append(guards)
                self.body(_nested_defs(statement.body), inner)
            elif isinstance(statement, ast.ClassDef):
                self.body(statement.body, [*scopes, ("class", statement.name)])
            else:
                self.body(_nested_defs([statement]), scopes)

    def _guards(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[int, tuple[int, ...]]]:
        for ordinal, node in enumerate(try_statements(fn.body)):
            catching = tuple(i for i, h in enumerate(node.handlers) if catches_failure(h.type))
            if catching and any(self._calls_step(statement) for statement in node.body):
                yield ordinal, catching

    def _calls_step(self, node: ast.AST) -> bool:
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, _SKIPPED):
                continue
            if isinstance(current, ast.Call):
                name = _name_of(current.func)
                if name is not None and self.is_step(name):
                    return True
            stack.extend(ast.iter_child_nodes(current))
        return False


def try_statements(statements: list[ast.stmt]) -> Iterator[ast.Try | ast.TryStar]:
    """The `try` statements among these and inside their blocks, in source order, not
    inside nested functions or classes (steps.py walks the LibCST tree the same way)."""
    for statement in statements:
        if isinstance(statement, _SKIPPED):
            continue
        if isinstance(statement, _TRY):
            yield statement
        for block in _blocks(statement):
            yield from try_statements(block)


def _blocks(statement: ast.stmt) -> Iterator[list[ast.stmt]]:
    if isinstance(statement, _TRY):
        yield statement.body
        for handler in statement.handlers:
            yield handler.body
        yield statement.orelse
        yield statement.finalbody
    elif isinstance(statement, ast.If | ast.For | ast.AsyncFor | ast.While):
        yield statement.body
        yield statement.orelse
    elif isinstance(statement, ast.With | ast.AsyncWith):
        yield statement.body
    elif isinstance(statement, ast.Match):
        for case in statement.cases:
            yield case.body


def _nested_defs(statements: list[ast.stmt]) -> list[ast.stmt]:
    """The functions and classes defined among these statements or inside their blocks
    (not inside those definitions), in source order."""
    out: list[ast.stmt] = []
    for statement in statements:
        if isinstance(statement, (*_DEFS, ast.ClassDef)):
            out.append(statement)
        else:
            for block in _blocks(statement):
                out.extend(_nested_defs(block))
    return out


def _qualname(scopes: list[tuple[str, str]]) -> str:
    """index.project's spelling of the innermost function's name: `parent.<locals>.name`
    when it is nested in a function, else the names of all open scopes joined with dots."""
    name = scopes[-1][1]
    if len(scopes) > 1 and scopes[-2][0] == "def":
        return f"{_qualname(scopes[:-1])}.<locals>.{name}"
    return ".".join(n for _, n in scopes)
