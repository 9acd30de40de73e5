"""Shapes of syntax the walk recognises, read off LibCST nodes (and module text): no state.

A `@contextmanager` cut at its `yield`, the request argument of a preempt however it is
spelled, a counter's decrement, literal defaults and module constants.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from ftlint.analysis import values as Val
from ftlint.core import vocabulary as V
from ftlint.syntax import ir

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ftlint.index.project import Function, ModuleInfo


class _CounterReads(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: set[str] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in V.ALL_COUNTER_FIELDS:
            self.found.add(node.attr.value)


def counters_read(test: cst.CSTNode) -> set[str]:
    """The counter fields an expression reads (`req.num_output_placeholders > 0`)."""
    reads = _CounterReads()
    test.visit(reads)
    return reads.found


def decrements(target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
    """`req.counter = req.counter - n` with n not a literal 0."""
    return (
        isinstance(target, cst.Attribute)
        and target.attr.value in V.ALL_COUNTER_FIELDS
        and isinstance(value, cst.BinaryOperation)
        and isinstance(value.operator, cst.Subtract)
        and ir.code_of(value.left) == ir.code_of(target)
        and not (isinstance(value.right, cst.Integer) and value.right.evaluated_value == 0)
    )


@dataclass(frozen=True)
class ContextSplit:
    """A `@contextmanager` function cut at its `yield`: what runs on entry, the value it
    yields, what runs on exit."""

    fn: Function
    via_instance: bool
    before: list[cst.BaseStatement]
    yielded: cst.BaseExpression | None
    after: list[cst.BaseStatement]


@dataclass(frozen=True)
class Body:
    """Statements run as a suite."""

    body: Sequence[cst.BaseStatement]


def statements(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    """The statements of an indented block (none for a one-line suite: its small statements
    hold no compound statement)."""
    return list(suite.body) if isinstance(suite, cst.IndentedBlock) else []


def _yield_of(statement: cst.BaseStatement) -> tuple[bool, cst.BaseExpression | None]:
    """(whether the statement is a bare `yield` / `yield x` / `name = yield x`, its value)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False, None
    small = statement.body[0]
    value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
    if isinstance(value, cst.Yield) and not isinstance(value.value, cst.From):
        return True, value.value
    return False, None


def yield_split(
    body: list[cst.BaseStatement],
) -> tuple[list[cst.BaseStatement], cst.BaseExpression | None, list[cst.BaseStatement]] | None:
    """`pre; yield x; post` or `pre; try: a; yield x; b finally: f; post` (no except
    clauses, no other yield): (pre [+ a], x, [b +] f + post); None for another shape."""
    for index, statement in enumerate(body):
        found, value = _yield_of(statement)
        if found:
            return body[:index], value, body[index + 1 :]
        if isinstance(statement, cst.Try) and not statement.handlers and statement.orelse is None:
            inner = statements(statement.body)
            for at, line in enumerate(inner):
                found, value = _yield_of(line)
                if found:
                    final = statements(statement.finalbody.body) if statement.finalbody is not None else []
                    return body[:index] + inner[:at], value, inner[at + 1 :] + final + body[index + 1 :]
    return None


def context_split(fn: Function, via_instance: bool) -> ContextSplit | None:
    """`fn` cut at its `yield` when it is a `@contextmanager` of a shape `yield_split` knows."""
    names = {ir.dotted_name(d.decorator) or "" for d in fn.node.decorators}
    if not any(n.rsplit(".", 1)[-1] == "contextmanager" for n in names):
        return None
    parts = yield_split(statements(fn.node.body))
    return ContextSplit(fn, via_instance, *parts) if parts is not None else None


def breaks_always(body: cst.BaseSuite) -> bool:
    """A loop body whose own statement list ends the loop with `break` on every pass."""
    statements = body.body if isinstance(body, cst.IndentedBlock) else ()
    return any(
        isinstance(line, cst.SimpleStatementLine) and any(isinstance(small, cst.Break) for small in line.body)
        for line in statements
    )


def target_names(target: cst.BaseExpression | None) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [el.value.value for el in target.elements if isinstance(el.value, cst.Name)]
    return []


class _Comparisons(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.Comparison] = []

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self.found.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


def comparisons(node: cst.CSTNode) -> list[cst.Comparison]:
    visitor = _Comparisons()
    node.visit(visitor)
    return visitor.found


def request_node(node: cst.CSTNode) -> cst.BaseExpression | None:
    """The request argument of a preempt call, however the call is spelled:
    `functools.partial(s._preempt_request, req)(ts)` (the partial's arguments come first),
    `operator.methodcaller("_preempt_request", req, ts)(s)` (the methodcaller's), and
    `s._preempt_request(**{"request": req, ...})` (a literal dict's item)."""
    if not isinstance(node, cst.Call):
        return None
    args = list(node.args)
    if isinstance(node.func, cst.Call):
        maker = ir.called_name(node.func.func)
        if maker == "partial":
            args = [*node.func.args[1:], *node.args]
        elif maker == "methodcaller":
            args = list(node.func.args[1:])
    spread = []
    for arg in args:
        if arg.star == "**" and isinstance(arg.value, cst.Dict):
            for element in arg.value.elements:
                if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
                    name = element.key.evaluated_value
                    if isinstance(name, str) and name.isidentifier():
                        spread.append(cst.Arg(value=element.value, keyword=cst.Name(name)))
        else:
            spread.append(arg)
    found = ir.request_argument(cst.Call(func=node.func, args=spread))
    return found.value if found is not None else None


_LITERALS: dict[str, Val.Value] = {"True": Val.TRUE, "False": Val.FALSE, "None": Val.NONE}


def string(node: cst.SimpleString) -> Val.Value:
    """A string literal's value; unknown where it cannot be read (or is bytes)."""
    try:
        text = node.evaluated_value
    except Exception:  # noqa: BLE001 - a string we cannot read is just unknown
        return None
    return Val.Str(text) if isinstance(text, str) else None


def literal(node: cst.BaseExpression) -> Val.Value:
    if isinstance(node, cst.Name):
        return _LITERALS.get(node.value)
    if isinstance(node, cst.Integer):
        return Val.ZERO if node.value == "0" else Val.OTHER
    if isinstance(node, cst.SimpleString):
        return string(node)
    if isinstance(node, (cst.Tuple, cst.List)):
        items = tuple(literal(el.value) for el in node.elements)
        return Val.Seq(items) if all(items) else None
    return None


def defaults(fn: Function) -> dict[str, Val.Value]:
    """Literal defaults of a function's parameters (`evict=False`)."""
    out: dict[str, Val.Value] = {}
    params = fn.node.params
    for param in (*params.params, *params.kwonly_params):
        if param.default is not None:
            value = literal(param.default)
            if value is not None:
                out[param.name.value] = value
    return out


_CONSTANTS: dict[object, tuple[str, dict[str, Val.Value]]] = {}
_TREES: dict[int, tuple[ModuleInfo, cst.Module | None]] = {}


def module_tree(info: ModuleInfo) -> cst.Module | None:
    """The module's whole tree: its own, or its text parsed once (an outlined module keeps
    only its functions' trees; asked for the class bodies of unresolved `self.x()` only)."""
    if info.module is not None:
        return info.module
    found = _TREES.get(id(info))
    if found is None or found[0] is not info:
        try:
            tree = cst.parse_module(info.text)
        except Exception:  # noqa: BLE001 - a module LibCST rejects has no class body to read
            tree = None
        found = _TREES[id(info)] = (info, tree)
    return found[1]


def module_constant(info: ModuleInfo, name: str) -> Val.Value:
    """A module-level `NAME = <literal>` (a tuple of counter names, say), read from the
    module's text with Python's parser (the module may be outlined)."""
    key = info.path  # by path and text: a ModuleInfo made again from the same text reuses it
    # an outlined module: its frame (outline.Outline.frame: the functions cut out), so an
    # edit inside a function of a big file does not parse the file again (issue 24)
    text = info.outline.frame() if info.outline is not None else info.text
    table = _CONSTANTS.get(key)
    if table is None or table[0] != text:
        table = _CONSTANTS[key] = (text, _constants(text, info.text))
    return table[1].get(name)


def _constants(text: str, whole: str) -> dict[str, Val.Value]:
    found: dict[str, Val.Value] = {}
    tree = None
    for source in (text, whole) if text is not whole else (text,):
        try:
            tree = ast.parse(source)
            break
        except (SyntaxError, ValueError):
            continue
    for statement in tree.body if tree is not None else ():
        if not (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            continue
        try:
            constant = ast.literal_eval(statement.value)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(constant, (tuple, list)) and constant and all(isinstance(x, str) for x in constant):
            found[statement.targets[0].id] = Val.Seq(tuple(Val.Str(x) for x in constant))
        elif isinstance(constant, str):
            found[statement.targets[0].id] = Val.Str(constant)
    return found
