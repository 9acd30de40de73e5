"""CST edits that several rules' fixes share: removing a statement without leaving
an empty block, and inserting the two counter resets after a preempt."""

from __future__ import annotations

from typing import Callable, Optional, Sequence

import libcst as cst

from ftlint import vocabulary as V
from ftlint.rule import Replacement

GetParent = Callable[[cst.CSTNode], Optional[cst.CSTNode]]


def enclosing_statement(node: cst.CSTNode, parent_of: GetParent) -> Optional[cst.CSTNode]:
    """The statement line (or compound statement) that holds `node`."""
    current: Optional[cst.CSTNode] = node
    while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        current = parent_of(current)
    return current


def remove_small_statement(small: cst.BaseSmallStatement, parent_of: GetParent) -> Optional[Replacement]:
    """Delete one small statement; the line if it is alone there; `pass` if the block would be empty."""
    line = parent_of(small)
    if isinstance(line, cst.SimpleStatementLine) and len(line.body) > 1:
        return Replacement(small, cst.RemovalSentinel.REMOVE)
    if isinstance(line, cst.SimpleStatementSuite):
        if len(line.body) > 1:
            return Replacement(small, cst.RemovalSentinel.REMOVE)
        return Replacement(small, cst.Pass())
    if not isinstance(line, cst.SimpleStatementLine):
        return None
    block = parent_of(line)
    if isinstance(block, cst.IndentedBlock) and len(block.body) == 1:
        return Replacement(small, cst.Pass())
    return Replacement(line, cst.RemovalSentinel.REMOVE)


def counter_resets(var: str) -> list[cst.SimpleStatementLine]:
    return [cst.parse_statement(f"{var}.{field} = 0\n") for field in V.COUNTER_FIELDS]  # type: ignore[misc]


def missing_resets_after(line: cst.SimpleStatementLine, var: str, parent_of: GetParent) -> list[str]:
    """Counter fields not reset on `var` by the statements after `line` in its block."""
    block = parent_of(line)
    missing = list(V.COUNTER_FIELDS)
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
                    if isinstance(t, cst.Attribute) and t.attr.value in missing:
                        if cst.Module(body=[]).code_for_node(t.value) == var:
                            missing.remove(t.attr.value)
    return missing


def insert_after(line: cst.SimpleStatementLine, new_line: cst.SimpleStatementLine, extra: list[cst.SimpleStatementLine]) -> Replacement:
    return Replacement(line, cst.FlattenSentinel([new_line, *extra]))
