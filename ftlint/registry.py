"""Every rule ftlint knows, found by importing the modules of `ftlint.rules`.

A new rule is one new module in rules/ holding one Rule subclass; nothing else to register.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from ftlint.finding import RuleDoc, Severity
from ftlint.rule import Rule
from ftlint.source import PARSE_ERROR_CODE, PARSE_ERROR_NAME

PARSE_ERROR_DOC = RuleDoc(
    code=PARSE_ERROR_CODE,
    name=PARSE_ERROR_NAME,
    summary="File could not be read or parsed",
    what_it_does=(
        "Reports a file ftlint was asked to lint but could not read, decode or parse "
        "(syntax error, bad encoding, binary content, unreadable)."
    ),
    why_bad="Fault-path rules cannot check a file they cannot parse; its problems would go unseen.",
    example='def on_fault(self, exc)\n    pass  # missing colon',
    use_instead="def on_fault(self, exc):\n    pass",
    severity=Severity.ERROR,
)


@lru_cache(maxsize=None)
def all_rules() -> dict[str, type[Rule]]:
    import ftlint.rules as package

    rules: dict[str, type[Rule]] = {}
    for module_info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{package.__name__}.{module_info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Rule) and value is not Rule and value.__module__ == module.__name__:
                if value.CODE in rules:
                    raise RuntimeError(f"duplicate rule code {value.CODE} in {module.__name__}")
                rules[value.CODE] = value
    return dict(sorted(rules.items()))


def known_codes() -> list[str]:
    return [PARSE_ERROR_CODE, *all_rules()]


def all_docs() -> dict[str, RuleDoc]:
    docs = {PARSE_ERROR_CODE: PARSE_ERROR_DOC}
    docs.update({code: rule.docs() for code, rule in all_rules().items()})
    return docs
