"""FT000 is reported where Python's compile() reports the syntax error (issue 23: a missing
`:` was reported a line below)."""

from __future__ import annotations

import ast

import pytest

from ftlint.core.source import ParseFailure, parse

CASES = [
    "import os\nif os.sep\n    pass\n",
    "x = 1\nclass A\n    pass\n",
    "def on_fault(self, exc)\n    self.x = 1\n",
    "x = (1,\ny = 2\n",
    "for r in running\n    r.x = 1\n",
]


@pytest.mark.parametrize("text", CASES)
def test_ft000_at_the_position_python_reports(text):
    with pytest.raises(SyntaxError) as python:
        compile(text, "<t>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    failure = parse(text)
    assert isinstance(failure, ParseFailure)
    assert (failure.line, failure.column) == (python.value.lineno, python.value.offset)
