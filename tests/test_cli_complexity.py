"""Issue 25: run_check is one function per job, each of McCabe complexity <= 15."""

import ast

from tests.helpers import ROOT

BRANCHES = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.ExceptHandler,
    ast.IfExp,
    ast.With,
    ast.Assert,
    ast.comprehension,
)


def complexity(func: ast.FunctionDef) -> int:
    """McCabe's count, as ruff's C901 approximates it: 1 + branches + boolean operands."""
    n = 1
    for node in ast.walk(func):
        if isinstance(node, BRANCHES):
            n += 1
        elif isinstance(node, ast.BoolOp):
            n += len(node.values) - 1
    return n


def test_cli_functions_are_simple():
    tree = ast.parse((ROOT / "ftlint" / "cli.py").read_text())
    scores = {f.name: complexity(f) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)}
    assert max(scores.values()) <= 15, scores
