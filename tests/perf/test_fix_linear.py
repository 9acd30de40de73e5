"""Fix edits are computed from the statement each fix lies in, not by generating the whole
module once per finding (issue 23: 1,000 fixable findings took > 300 s). The figures are
in benchmarks/bench_fixes.py; this test counts whole-module transforms."""

from __future__ import annotations

from pathlib import Path

from ftlint.core.config import load_config
from ftlint.lint.engine import lint_paths
from ftlint.syntax import textedits

HEAD = "class Sentinel:\n    def on_fault(self, exc):\n        s = self.scheduler\n        for r in list(s.running):\n"


def test_many_fixes_do_not_transform_the_module_per_finding(tmp_path: Path, monkeypatch):
    body = "".join(
        f"            # note {i}\n            r.drop_stale_output = True\n            x{i} = 1\n"
        f"            s._preempt_request(r, 0.0, drop_stale_output=True)\n"
        for i in range(40)
    )
    path = tmp_path / "sentinel.py"
    path.write_text(HEAD + body)
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n")
    calls = []
    original = textedits.transform
    monkeypatch.setattr(textedits, "transform", lambda *a: calls.append(1) or original(*a))
    result = lint_paths([path], load_config(tmp_path), {"FT001"}, cwd=tmp_path)
    fixes = [f.fix for f in result.findings if f.fix and f.fix_applicability == "safe"]
    assert len(fixes) == 80
    assert len(calls) == 0
    fixed, applied = textedits.apply_edits(path.read_text(), fixes)
    assert applied == 80
    assert "drop_stale_output" not in fixed
    assert fixed.count("# note") == 40 and fixed.count("r.num_stale_output_tokens = 0") == 40
