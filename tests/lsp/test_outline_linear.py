"""Issue 24 item 2: the language server's work per edit is linear in the functions of
the edited file (carry_over's grouping, function_node's outermost unit and the
interpreter's handler walks each were all-pairs). The edit -> findings step of the
server's Workspace (set_text, then lint) on files of 1,000 and 4,000 functions: the
4x file costs under 6x (a quadratic term gives 16x). CPU time of this process, the best
of five edits each, so other jobs on the host do not count."""

from __future__ import annotations

import time
from pathlib import Path

from ftlint.core.config import load_config
from ftlint.lint.workspace import Workspace

HANDLER = (
    "class Sentinel:\n    def on_fault(self, exc):\n        for r in list(self.scheduler.running):\n"
    "            r.drop_stale_output = True\n            helper_0(r)\n\n\n"
)


def _text(functions: int, edit: int) -> str:
    """`functions` functions, one in ten a fault handler (a class of its own)."""
    body = "".join(
        HANDLER.replace("Sentinel", f"Sentinel{i}")
        if i % 10 == 0
        else f"def helper_{i}(r):\n    return [r, {i}][0]\n\n\n"
        for i in range(functions)
    )
    return body + f"# edit {edit}\n"


def _per_edit(tmp_path: Path, functions: int) -> float:
    root = tmp_path / str(functions)
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.ftlint]\n")
    path = root / "sentinel.py"
    path.write_text(_text(functions, 0))
    ws = Workspace(load_config(root), {"FT001"}, cwd=root)
    assert len(ws.lint(path).findings) == functions // 10
    best = float("inf")
    for edit in range(1, 6):
        start = time.process_time()
        ws.set_text(path, _text(functions, edit))
        findings = ws.lint(path).findings
        best = min(best, time.process_time() - start)
        assert len(findings) == functions // 10
    return best


def test_an_edit_costs_linear_time_in_the_functions_of_the_file(tmp_path: Path):
    small, large = _per_edit(tmp_path, 1_000), _per_edit(tmp_path, 4_000)
    assert large / small < 6, f"1,000 functions {small * 1000:.0f} ms, 4,000 functions {large * 1000:.0f} ms"
