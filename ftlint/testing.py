"""Every rule's VALID/INVALID examples as pytest cases, run through the real engine
(Fixit's idea), so a rule's examples are its tests and a local rule gets the same checks.

    import pytest
    from ftlint.testing import check_example, example_params

    @pytest.mark.parametrize("example", example_params())
    def test_rule_example(example, tmp_path):
        check_example(example, tmp_path)

`example_params()` gives the built-in rules' examples; a project's test suite passes its
own rule module (or a list of rule classes, or a code -> class mapping):
`example_params(myproject.lint_rules)`. An example of a local rule is linted with its
module named in the example project's `rules` setting (see docs/local-rules.md).

A VALID example must draw no finding of its rule. An INVALID example must draw at least
one; when it gives `expect`, the findings' positions (and, from a trailing string in an
entry, the message text) must match; `message` is a text every finding must contain;
`fixed` is the example's file after the rule's fixes, which must parse and lint clean.
pytest is imported only by `example_params` (the linter itself needs only libcst).
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from ftlint.core.config import load_config
from ftlint.core.source import parse
from ftlint.lint.engine import lint_paths
from ftlint.lint.registry import all_rules, known_codes, rules_in
from ftlint.syntax import textedits

if TYPE_CHECKING:  # pragma: no cover
    from ftlint.core.finding import Finding
    from ftlint.lint.rule import Case, Rule

#: The file name an example's `code` is written to.
MAIN = "example.py"


@dataclass(frozen=True)
class Example:
    """One example of one rule; `id` names it like FT004-INVALID-2 (plus `-name` when the
    example has a name)."""

    rule: type[Rule]
    kind: str  # "VALID" or "INVALID"
    index: int  # 1-based, within the rule's VALID or INVALID list
    case: Case

    @property
    def id(self) -> str:
        label = f"{self.rule.CODE}-{self.kind}-{self.index}"
        return label + (f"-{self.case.name}" if self.case.name else "")


#: what `examples` and `example_params` take: a rule module, rule classes, code -> class
Rules = Mapping[str, "type[Rule]"] | ModuleType | Iterable["type[Rule]"] | None


def _as_mapping(rules: Rules) -> Mapping[str, type[Rule]]:
    if rules is None:
        return all_rules()
    if isinstance(rules, Mapping):
        return rules
    if isinstance(rules, ModuleType):
        found = {rule.CODE: rule for rule in rules_in(rules)}
        if not found:
            raise ValueError(f"module {rules.__name__} holds no Rule subclass")
        return found
    return {rule.CODE: rule for rule in cast("Iterable[type[Rule]]", rules)}


def examples(rules: Rules = None) -> list[Example]:
    """Every example of `rules` (default: every built-in rule), in code order."""
    found: list[Example] = []
    for _code, rule in sorted(_as_mapping(rules).items()):
        for kind, cases in (("VALID", rule.VALID), ("INVALID", rule.INVALID)):
            found.extend(Example(rule, kind, index, case) for index, case in enumerate(cases, 1))
    return found


def example_params(rules: Rules = None) -> list[Any]:
    """`examples(rules)` as pytest parameters with readable ids."""
    import pytest

    return [pytest.param(example, id=example.id) for example in examples(rules)]


@dataclass(frozen=True)
class Expected:
    """One `expect` entry: where a finding is (column optional) and, optionally, a text its
    message contains."""

    path: str
    line: int
    column: int | None
    message: str

    @classmethod
    def parse(cls, item: tuple[str | int, ...]) -> Expected:
        rest = list(item)
        path, message = MAIN, ""
        first = rest[0] if rest else None
        if len(rest) > 1 and isinstance(first, str) and isinstance(rest[1], int):
            path = first
            rest.pop(0)
        last = rest[-1] if rest else None
        if isinstance(last, str):
            message = last
            rest.pop()
        numbers = [n for n in rest if isinstance(n, int)]
        if not rest or len(rest) > 2 or len(numbers) != len(rest):
            raise ValueError(f"bad expect entry {item!r}: use ([path,] line[, column][, message])")
        return cls(path, numbers[0], numbers[1] if len(numbers) == 2 else None, message)

    def matches(self, finding: Finding) -> bool:
        return (
            finding.path == self.path
            and finding.line == self.line
            and (self.column is None or finding.column == self.column)
            and self.message in finding.message
        )


def write_example(case: Case, directory: Path, rule: type[Rule] | None = None) -> list[Path]:
    """Write the example's project into `directory`; returns the files to lint (relative).
    A local `rule` (not built in) is enabled by naming its module in the `rules` setting."""
    local = rule is not None and all_rules().get(rule.CODE) is not rule
    enable = f"rules = [{json.dumps(rule.__module__)}]\n" if local and rule is not None else ""
    (directory / "pyproject.toml").write_text("[tool.ftlint]\n" + enable + textwrap.dedent(case.config))
    (directory / MAIN).write_text(case.code)
    for name, text in case.files.items():
        target = directory / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"))
    return [Path(name) for name in (case.lint or (MAIN, *case.files))]


def lint_example(directory: Path, files: Iterable[Path]) -> list[Finding]:
    """Lint as `ftlint check` does, every rule selected; an internal error fails the case."""
    config = load_config(directory)
    result = lint_paths(list(files), config, set(known_codes(config)), cwd=directory)
    assert not result.internal_errors, result.internal_errors
    return list(result.findings)


def check_example(example: Example, directory: Path) -> None:
    """Run one example in the empty directory `directory`; AssertionError says what differs."""
    code, case = example.rule.CODE, example.case
    mine = [f for f in lint_example(directory, write_example(case, directory, example.rule)) if f.code == code]
    shown = [f"{f.path}:{f.line}:{f.column} {f.message}" for f in mine]
    if example.kind == "VALID":
        assert mine == [], f"{code} flagged a VALID example: {shown}"
        return
    assert mine, f"{code} reported nothing for an INVALID example"
    if case.message:
        wrong = [s for f, s in zip(mine, shown, strict=True) if case.message not in f.message]
        assert not wrong, f"{code} messages lack {case.message!r}: {wrong}"
    expected = [Expected.parse(item) for item in case.expect]
    if expected:
        _check_positions(code, expected, mine)
    if case.fixed is not None:
        _check_fix(example, directory, mine)


def _check_positions(code: str, expected: list[Expected], mine: list[Finding]) -> None:
    """Each expected entry matches its own finding, and every finding is expected."""
    left = list(mine)
    for entry in expected:
        hit = next((f for f in left if entry.matches(f)), None)
        assert hit is not None, f"{code}: no finding matches {entry}; found {_show(left)}"
        left.remove(hit)
    assert not left, f"{code}: findings that no expect entry names: {_show(left)}"


def _check_fix(example: Example, directory: Path, mine: list[Finding]) -> None:
    fixable = [f for f in mine if f.path == MAIN and f.fix]
    assert fixable, "the example declares `fixed` but no finding offers a fix"
    text = (directory / MAIN).read_text()
    fixed, _applied = textedits.apply_edits(text, [f.fix for f in fixable])
    assert fixed == example.case.fixed
    assert not hasattr(parse(fixed), "message"), "the fixed code must parse"
    (directory / MAIN).write_text(fixed)
    again = [f for f in lint_example(directory, [Path(MAIN)]) if f.code == example.rule.CODE and f.path == MAIN]
    assert again == [], f"re-linting the fixed code still reports the rule: {_show(again)}"


def _show(findings: list[Finding]) -> list[str]:
    return [f"{f.path}:{f.line}:{f.column} {f.message}" for f in findings]
