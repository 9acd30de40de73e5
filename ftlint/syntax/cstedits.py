"""CST edits that several rules' fixes share: removing a statement without leaving
an empty block, and inserting the two counter resets after a preempt."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from ftlint.core import vocabulary as V
from ftlint.syntax.textedits import Replacement

GetParent = Callable[[cst.CSTNode], cst.CSTNode | None]


def enclosing_statement(node: cst.CSTNode, parent_of: GetParent) -> cst.CSTNode | None:
    """The statement line (or compound statement) that holds `node`."""
    current: cst.CSTNode | None = node
    while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        current = parent_of(current)
    return current


def remove_small_statement(small: cst.BaseSmallStatement, parent_of: GetParent) -> list[Replacement] | None:
    """Delete one small statement; the line if it is alone there; `pass` if the block would
    be empty. The comment lines above a deleted line stay (they go to the next statement,
    or the line becomes `pass`), and the statement before a deleted last one on its line
    loses its `;`."""
    line = parent_of(small)
    if isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) and len(line.body) > 1:
        body = [s for s in line.body if s is not small]
        if line.body[-1] is small:
            body[-1] = body[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
        return [Replacement(line, line.with_changes(body=body))]
    if isinstance(line, cst.SimpleStatementSuite):
        return [Replacement(small, cst.Pass())]
    if not isinstance(line, cst.SimpleStatementLine):
        return None
    block = parent_of(line)
    if isinstance(block, cst.IndentedBlock) and len(block.body) == 1:
        return [Replacement(small, cst.Pass())]
    if not any(empty.comment is not None for empty in line.leading_lines):
        return [Replacement(line, cst.RemovalSentinel.REMOVE)]
    siblings: Sequence[cst.CSTNode] = getattr(block, "body", ())
    index = next((i for i, s in enumerate(siblings) if s is line), None)
    after = siblings[index + 1] if index is not None and index + 1 < len(siblings) else None
    if isinstance(after, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) and hasattr(after, "leading_lines"):
        moved = after.with_changes(leading_lines=[*line.leading_lines, *after.leading_lines])
        return [Replacement(line, cst.RemovalSentinel.REMOVE), Replacement(after, moved)]
    return [Replacement(small, cst.Pass())]  # the last statement: its comment stays above a `pass`


def counter_resets(var: str, counters: Sequence[str] = V.COUNTER_FIELDS) -> list[cst.SimpleStatementLine]:
    """`var.<counter> = 0` for each counter (the fields of the linted code's API generation)."""
    return [cst.parse_statement(f"{var}.{field} = 0\n") for field in counters]  # type: ignore[misc]


def missing_resets_after(
    line: cst.SimpleStatementLine, var: str, parent_of: GetParent, counters: Sequence[str] = V.COUNTER_FIELDS
) -> list[str]:
    """Counter fields not reset on `var` by the statements after `line` in its block."""
    block = parent_of(line)
    missing = list(counters)
    if not isinstance(block, (cst.IndentedBlock, cst.Module)):
        return missing
    body: Sequence[cst.CSTNode] = block.body
    seen = False
    for statement in body:
        if statement is line:
            seen = True
            continue
        if not seen or not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign) and isinstance(small.value, cst.Integer) and small.value.value == "0":
                for target in small.targets:
                    t = target.target
                    if (
                        isinstance(t, cst.Attribute)
                        and t.attr.value in missing
                        and cst.Module(body=[]).code_for_node(t.value) == var
                    ):
                        missing.remove(t.attr.value)
    return missing


def insert_after(
    line: cst.SimpleStatementLine, new_line: cst.SimpleStatementLine, extra: list[cst.SimpleStatementLine]
) -> Replacement:
    return Replacement(line, cst.FlattenSentinel([new_line, *extra]))


# -- a request expression evaluated once ----------------------------------------------------
def side_effect_free(expr: cst.BaseExpression) -> bool:
    """A name, an attribute chain, or a subscript of those by a name or a literal:
    writing it again (in a counter reset) evaluates nothing that acts."""
    if isinstance(expr, (cst.Name, cst.Integer, cst.SimpleString)):
        return True
    if isinstance(expr, cst.Attribute):
        return side_effect_free(expr.value)
    if isinstance(expr, cst.Subscript):
        return side_effect_free(expr.value) and all(
            isinstance(element.slice, cst.Index) and side_effect_free(element.slice.value) for element in expr.slice
        )
    return False


def enclosing_scope(node: cst.CSTNode, parent_of: GetParent) -> cst.CSTNode:
    """The function `node` is in or, outside any, the root of its tree (the module): where
    a name bound next to `node` must not clash (see fresh_name)."""
    current = node
    while True:
        parent = parent_of(current)
        if parent is None or isinstance(parent, cst.FunctionDef):
            return parent or current
        current = parent


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def fresh_name(scope: cst.CSTNode | None, base: str = "preempted") -> str:
    """A name no Name in `scope` uses (`preempted`, `preempted_1`, ...)."""
    collector = _Names()
    if scope is not None:
        scope.visit(collector)
    name, n = base, 0
    while name in collector.names:
        n += 1
        name = f"{base}_{n}"
    return name


def bindable_call_line(call: cst.Call, parent_of: GetParent) -> cst.SimpleStatementLine | None:
    """The statement line when it is only `call` (an expression statement in a block):
    the call's argument can then be bound to a name on the line before without moving
    anything else's evaluation past it."""
    expr = parent_of(call)
    line = parent_of(expr) if isinstance(expr, cst.Expr) else None
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    if not isinstance(parent_of(line), (cst.IndentedBlock, cst.Module)):
        return None
    return line


def bind_then(
    line: cst.SimpleStatementLine,
    new_line: cst.SimpleStatementLine,
    expr: cst.BaseExpression,
    name: str,
    after: Sequence[cst.SimpleStatementLine],
) -> Replacement:
    """`name = <expr>` (with the line's leading comments), then `new_line` with `expr`
    replaced by `name`, then `after`: an unsafe fix (the call's own callee is now
    looked up after its argument)."""
    binding = cst.SimpleStatementLine(
        body=[cst.Assign(targets=[cst.AssignTarget(target=cst.Name(name))], value=expr)],
        leading_lines=line.leading_lines,
    )
    rebound = new_line.deep_replace(expr, cst.Name(name)).with_changes(leading_lines=())
    return Replacement(line, cst.FlattenSentinel([binding, rebound, *after]))
