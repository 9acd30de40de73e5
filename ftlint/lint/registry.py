"""Every rule ftlint knows, found by importing the modules of `ftlint.rules`.

A new rule is one new module in rules/ holding one Rule subclass; nothing else to register.
Importing a rule imports LibCST (~0.5 s): the codes and docs are therefore available
without importing the rules, so a cached run never pays for it.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import re
from collections.abc import Iterator, Mapping
from functools import cache
from typing import TYPE_CHECKING, cast

from ftlint.core.finding import RuleDoc, Severity
from ftlint.core.source import PARSE_ERROR_CODE, PARSE_ERROR_NAME

if TYPE_CHECKING:  # pragma: no cover
    from importlib.machinery import ModuleSpec

    from ftlint.lint.rule import Rule

_CODE_LINE = re.compile(r'^\s+CODE\s*=\s*["\'](FT\d+)["\']', re.M)
_OPT_IN_LINE = re.compile(r"^\s+OPT_IN\s*=\s*True\b", re.M)

PARSE_ERROR_DOC = RuleDoc(
    code=PARSE_ERROR_CODE,
    name=PARSE_ERROR_NAME,
    summary="File could not be read or parsed",
    what_it_does=(
        "Reports a file ftlint was asked to lint but could not read, decode or parse "
        "(syntax error, bad encoding, binary content, unreadable)."
    ),
    why_bad="Fault-path rules cannot check a file they cannot parse; its problems would go unseen.",
    example="def on_fault(self, exc)\n    pass  # missing colon",
    use_instead="def on_fault(self, exc):\n    pass",
    severity=Severity.ERROR,
)


@cache
def all_rules() -> dict[str, type[Rule]]:
    import ftlint.rules as package
    from ftlint.lint.rule import Rule

    rules: dict[str, type[Rule]] = {}
    for module_info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{package.__name__}.{module_info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Rule)
                and value is not Rule
                and value.__module__ == module.__name__
            ):
                if value.CODE in rules:
                    raise RuntimeError(f"duplicate rule code {value.CODE} in {module.__name__}")
                rules[value.CODE] = value
    return dict(sorted(rules.items()))


def _rule_sources() -> tuple[str, ...]:
    """The rule modules' sources (not cached itself: rule_codes and opt_in_codes are, and
    a test adding a rule module clears them)."""
    spec = cast("ModuleSpec", importlib.util.find_spec("ftlint.rules"))  # part of this package: always found
    sources = []
    for folder in spec.submodule_search_locations or ():
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py") and not name.startswith("_"):
                with open(os.path.join(folder, name), encoding="utf-8") as fh:
                    sources.append(fh.read())
    return tuple(sources)


@cache
def rule_codes() -> tuple[str, ...]:
    """The rule codes, read from the rule modules' sources without importing them
    (tests/test_cli.py checks this equals `all_rules()`)."""
    return tuple(sorted({code for source in _rule_sources() for code in _CODE_LINE.findall(source)}))


@cache
def opt_in_codes() -> frozenset[str]:
    """The codes of the rules that are off by default (`OPT_IN = True`, see rule.py), read
    as rule_codes reads the codes (tests/test_unused_noqa.py checks it against the classes)."""
    return frozenset(
        code for source in _rule_sources() if _OPT_IN_LINE.search(source) for code in _CODE_LINE.findall(source)
    )


def known_codes() -> list[str]:
    return [PARSE_ERROR_CODE, *rule_codes()]


class _LazyDocs(Mapping):
    """code -> RuleDoc, importing the rules only when a reporter reads a doc."""

    def __init__(self, extra: Mapping[str, RuleDoc] | None = None) -> None:
        self._extra = dict(extra or {})
        self._docs: dict[str, RuleDoc] | None = None

    def _load(self) -> dict[str, RuleDoc]:
        if self._docs is None:
            docs = {PARSE_ERROR_CODE: PARSE_ERROR_DOC}
            docs.update({code: rule.docs() for code, rule in all_rules().items()})
            docs.update(self._extra)
            self._docs = docs
        return self._docs

    def __getitem__(self, code: str) -> RuleDoc:
        return self._load()[code]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


def all_docs(extra: Mapping[str, RuleDoc] | None = None) -> Mapping[str, RuleDoc]:
    return _LazyDocs(extra)
