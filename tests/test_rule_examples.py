"""Runs every VALID/INVALID example of every rule through the real engine (Fixit's idea,
as pytest parameters named like FT001-INVALID-2-new-api-preempt-argument)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ftlint import fixes
from ftlint.config import load_config
from ftlint.engine import lint_paths
from ftlint.registry import all_rules, known_codes
from ftlint.rule import Case
from ftlint.source import parse

MAIN = "example.py"


def _cases():
    for code, rule in all_rules().items():
        for kind, cases in (("VALID", rule.VALID), ("INVALID", rule.INVALID)):
            for index, case in enumerate(cases, 1):
                label = f"{code}-{kind}-{index}" + (f"-{case.name}" if case.name else "")
                yield pytest.param(rule, kind, case, id=label)


def _write(tmp_path: Path, case: Case) -> list[Path]:
    (tmp_path / "pyproject.toml").write_text("[tool.ftlint]\n" + textwrap.dedent(case.config))
    (tmp_path / MAIN).write_text(case.code)
    for name, text in case.files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"))
    names = case.lint or (MAIN, *case.files)
    return [Path(n) for n in names]


def _lint(tmp_path: Path, files: list[Path]):
    config = load_config(tmp_path)
    result = lint_paths(files, config, set(known_codes()), cwd=tmp_path)
    assert not result.internal_errors, result.internal_errors
    return result.findings


def _expected(case: Case) -> list[tuple]:
    expected = []
    for item in case.expect:
        path, rest = (item[0], item[1:]) if isinstance(item[0], str) else (MAIN, item)
        expected.append((path, *rest))
    return sorted(expected)


def _actual(findings, code: str, expected: list[tuple]) -> list[tuple]:
    widths = {e[0]: len(e) for e in expected}
    actual = []
    for f in findings:
        if f.code != code:
            continue
        width = widths.get(f.path, 3)
        actual.append((f.path, f.line, f.column)[:width])
    return sorted(actual)


@pytest.mark.parametrize("rule, kind, case", list(_cases()))
def test_rule_example(tmp_path, rule, kind, case: Case):
    findings = _lint(tmp_path, _write(tmp_path, case))
    mine = [f for f in findings if f.code == rule.CODE]
    if kind == "VALID":
        assert mine == [], [f"{f.path}:{f.line}:{f.column} {f.message}" for f in mine]
        return
    assert mine, f"{rule.CODE} reported nothing for an INVALID example"
    expected = _expected(case)
    if expected:
        assert _actual(findings, rule.CODE, expected) == expected
    if case.fixed is not None:
        main_findings = [f for f in mine if f.path == MAIN and f.fix]
        assert main_findings, "example declares a fix but no finding offers one"
        text = (tmp_path / MAIN).read_text()
        fixed, applied = fixes.apply_edits(text, [f.fix for f in main_findings])
        assert fixed == case.fixed
        assert not hasattr(parse(fixed), "message"), "fixed code must parse"
        (tmp_path / MAIN).write_text(fixed)
        again = [f for f in _lint(tmp_path, [Path(MAIN)]) if f.code == rule.CODE and f.path == MAIN]
        assert again == [], "re-linting the fixed code still reports the rule"


def test_every_rule_has_examples_and_docs():
    for code, rule in all_rules().items():
        doc = rule.docs()
        assert rule.VALID and rule.INVALID, code
        assert doc.what_it_does and doc.why_bad and doc.example and doc.use_instead, code
        assert doc.name == rule.NAME and "-" in rule.NAME or rule.NAME.isalpha(), code
