"""README's rule table and docs/rules.md are generated from the rule registry (issue 25 item 1).

One command writes both (`python -m ftlint.docs`, or `make docs`); these tests fail with
that command when a page differs from what the registry gives, so a new rule is one file
plus one command.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ftlint.docs import COMMAND, ROOT, generated, rule_pages, rule_table, stale, with_table
from ftlint.lint.registry import all_docs, all_rules


def test_generated_pages_match_the_registry():
    old = [str(p.relative_to(ROOT)) for p in stale()]
    assert not old, f"stale generated docs {old}: regenerate with `{COMMAND}` (or `make docs`)"


def test_the_pages_hold_every_registered_rule():
    docs = all_docs()
    table, pages = rule_table(docs.values()), rule_pages(docs.values())
    for code, doc in docs.items():
        fix = "yes" if code in all_rules() and all_rules()[code].FIXABLE else ""
        assert f"| {code} | {doc.name} | {fix} |" in table
        assert f'<a id="{code.lower()}"></a>\n\n{doc.markdown()}' in pages
    assert len(table.splitlines()) == 2 + len(docs)


def test_check_names_a_stale_file_and_the_command(tmp_path: Path):
    """--check on a copy whose docs/rules.md is stale: exit 1, the file and the command named,
    nothing written; the generator then writes it and --check passes."""
    (tmp_path / "docs").mkdir()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (tmp_path / "README.md").write_text(readme, encoding="utf-8")
    (tmp_path / "docs" / "rules.md").write_text("# old\n", encoding="utf-8")
    assert [p.name for p in stale(tmp_path)] == ["rules.md"]
    for path, text in generated(tmp_path).items():
        path.write_text(text, encoding="utf-8")
    assert stale(tmp_path) == []
    proc = subprocess.run([sys.executable, "-m", "ftlint.docs", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_readme_table_replaced_between_the_markers_only():
    text = "intro\n<!-- rules:start -->\nold\n<!-- rules:end -->\nrest\n"
    assert with_table(text, "| new |\n") == "intro\n<!-- rules:start -->\n| new |\n<!-- rules:end -->\nrest\n"
