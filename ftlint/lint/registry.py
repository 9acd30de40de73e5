"""Every rule ftlint knows: the built-in ones, found by importing the modules of
`ftlint.rules`, and the project's own, named by the `rules` setting (local rules).

A new rule is one new module holding one Rule subclass; nothing else to register. In
rules/ it is a built-in rule; anywhere the linted project can import it from, listed in
`[tool.ftlint] rules = ["myproject.lint_rules"]`, it is a local rule of that project.
Importing a rule imports LibCST (~0.5 s): the codes (built-in and local) and the local
rules' fingerprint are therefore read from the modules' sources without importing them,
so a cached run never pays for it.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib.machinery import PathFinder
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, cast

from ftlint.core.config import Config, ConfigError
from ftlint.core.digests import content_hash, digest
from ftlint.core.finding import RuleDoc, Severity
from ftlint.core.source import PARSE_ERROR_CODE, PARSE_ERROR_NAME

if TYPE_CHECKING:  # pragma: no cover
    from importlib.machinery import ModuleSpec

    from ftlint.lint.rule import Rule

_CODE_LINE = re.compile(r'^\s+CODE\s*=\s*["\'](FT\d+)["\']', re.M)
_OPT_IN_LINE = re.compile(r"^\s+OPT_IN\s*=\s*True\b", re.M)
#: a local rule's CODE: capital letters then digits (FT101, ACME001), a string literal in
#: the class body so that it can be read without importing the module
_LOCAL_CODE_LINE = re.compile(r'^\s+CODE\s*(?::[^=\n]*)?=\s*["\']([A-Z]+[0-9]+)["\']', re.M)
_LOCAL_CODE = re.compile(r"[A-Z]+[0-9]+")

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


def rules_in(module: ModuleType) -> list[type[Rule]]:
    """The Rule subclasses defined in `module` (not those it imports)."""
    from ftlint.lint.rule import Rule

    return [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, Rule)
        and value is not Rule
        and value.__module__ == module.__name__
    ]


@cache
def all_rules() -> dict[str, type[Rule]]:
    """The built-in rules, code -> class."""
    import ftlint.rules as package

    rules: dict[str, type[Rule]] = {}
    for module_info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{package.__name__}.{module_info.name}")
        for value in rules_in(module):
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
    """The built-in rule codes, read from the rule modules' sources without importing them
    (tests/test_cli.py checks this equals `all_rules()`)."""
    return tuple(sorted({code for source in _rule_sources() for code in _CODE_LINE.findall(source)}))


@cache
def _builtin_opt_in_codes() -> frozenset[str]:
    return frozenset(
        code for source in _rule_sources() if _OPT_IN_LINE.search(source) for code in _CODE_LINE.findall(source)
    )


def opt_in_codes(config: Config | None = None) -> frozenset[str]:
    """The codes of the rules that are off by default (`OPT_IN = True`, see rule.py), read
    as rule_codes reads the codes (tests/test_unused_noqa.py checks it against the classes);
    with `config`, its local rules' too."""
    local = [code for module in local_modules(config) for code in module.opt_in] if config is not None else []
    return _builtin_opt_in_codes() | frozenset(local)


def known_codes(config: Config | None = None) -> list[str]:
    """FT000, the built-in codes and, with `config`, its local rules' codes (read from
    their sources, not imported)."""
    local = [code for module in local_modules(config) for code in module.codes] if config is not None else []
    return [PARSE_ERROR_CODE, *sorted([*rule_codes(), *local])]


def rules_for(config: Config | None) -> dict[str, type[Rule]]:
    """The rules a run of `config` knows: the built-in ones and its local rules (imported)."""
    if config is None or not config.rules:
        return all_rules()
    return dict(sorted({**all_rules(), **_import_local_rules(config)}.items()))


# -- local rules ----------------------------------------------------------------------------


class LocalRuleError(ConfigError):
    """A local rule that cannot be used; one line naming the config file, the `rules` key
    and the module (the CLI prints it and exits 2)."""


def _error(config: Config, message: str) -> LocalRuleError:
    return LocalRuleError(message, config.path, "rules", table=config.table)


@dataclass(frozen=True)
class LocalModule:
    """One entry of `rules`, found without importing it: the files its rules are read from
    (a module's file; a package's `__init__.py` and its modules), every file whose content
    the cache key holds (a package: every .py file below it) and the codes it defines."""

    name: str
    rule_files: tuple[Path, ...]
    files: tuple[Path, ...]
    codes: tuple[str, ...]
    opt_in: tuple[str, ...] = ()  # the codes of its rules that are off by default


def local_modules(config: Config) -> list[LocalModule]:
    """The local rule modules of `config`, read (not imported); LocalRuleError when one cannot
    be found, defines no rule, or a code clashes with a built-in or another local rule."""
    if config.rules:
        importlib.invalidate_caches()  # a module written since the last look (a server, a test) is found
    taken = {code: "a built-in rule" for code in (PARSE_ERROR_CODE, *rule_codes())}
    found: list[LocalModule] = []
    for name in config.rules:
        module = _find_local(config, name)
        if not module.codes:
            raise _error(
                config,
                f'module {name!r} holds no rule: no Rule subclass with a CODE = "..." line in '
                + ", ".join(map(str, module.rule_files)),
            )
        for code in module.codes:
            if code in taken:
                raise _error(config, f"module {name!r}: rule code {code} is already used by {taken[code]}")
            taken[code] = f"module {name!r}"
        found.append(module)
    return found


def local_fingerprint(config: Config) -> str:
    """A digest of the local rule modules' contents ("" without local rules): part of the
    result cache's key, so editing a local rule re-lints."""
    if not config.rules:
        return ""
    parts = []
    for module in local_modules(config):
        for path in module.files:
            try:
                parts.append((module.name, os.fspath(path), content_hash(path.read_bytes())))
            except OSError as err:
                raise _error(config, f"module {module.name!r}: cannot read {path}: {err.strerror or err}") from None
    return digest(parts)


def _search_path(config: Config) -> list[str]:
    root = os.fspath(config.root)
    return [root, *(entry for entry in sys.path if entry != root)]


def _locate(config: Config, name: str) -> tuple[Path | None, list[str]]:
    """(the module's file, None for a namespace package; a package's folders): an imported
    module's, else found like `import` would find it from the project root or sys.path
    (without running any package's `__init__`)."""
    loaded = sys.modules.get(name)
    if loaded is not None and getattr(loaded, "__file__", None):
        return Path(cast(str, loaded.__file__)), list(getattr(loaded, "__path__", []) or [])
    spec = None
    path: list[str] | None = _search_path(config)
    parts = name.split(".")
    for depth in range(1, len(parts) + 1):
        if path is None:  # a module where a package was needed
            spec = None
            break
        spec = PathFinder.find_spec(".".join(parts[:depth]), path)
        if spec is None:
            break
        path = list(spec.submodule_search_locations or []) or None
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    located = spec is not None and spec.origin is not None and spec.has_location
    if spec is None or (not located and not folders):
        raise _error(config, f"cannot find module {name!r} (looked in the project root {config.root} or sys.path)")
    return (Path(cast(str, spec.origin)) if located else None), folders


def _find_local(config: Config, name: str) -> LocalModule:
    """Where `name` lives (see _locate) and the codes its rule files define."""
    origin, folders = _locate(config, name)
    rule_files: tuple[Path, ...]
    files: tuple[Path, ...]
    if not folders:
        rule_files = files = (cast(Path, origin),)  # a module is a file
    else:
        top = [origin] if origin is not None else []
        rule_files = tuple([*top, *sorted(p for f in folders for p in Path(f).glob("*.py") if p != origin)])
        files = tuple(sorted({*top, *(p for f in folders for p in Path(f).rglob("*.py"))}))
    codes: list[str] = []
    opt_in: list[str] = []
    for rule_file in rule_files:
        try:
            source = rule_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise _error(config, f"module {name!r}: cannot read {rule_file}: {err}") from None
        codes.extend(_LOCAL_CODE_LINE.findall(source))
        if _OPT_IN_LINE.search(source):
            opt_in.extend(_LOCAL_CODE_LINE.findall(source))
    duplicates = sorted({code for code in codes if codes.count(code) > 1})
    if duplicates:
        raise _error(config, f"module {name!r}: rule code {duplicates[0]} is defined twice")
    return LocalModule(name, rule_files, files, tuple(sorted(codes)), tuple(sorted(opt_in)))


def _import_local_rules(config: Config) -> dict[str, type[Rule]]:
    rules: dict[str, type[Rule]] = {}
    for module in local_modules(config):
        found = [rule for imported in _import(config, module.name) for rule in rules_in(imported)]
        if not found:
            raise _error(config, f"module {module.name!r} holds no rule (no subclass of ftlint.lint.rule.Rule)")
        for rule in found:
            code = getattr(rule, "CODE", None)
            if not isinstance(code, str) or not _LOCAL_CODE.fullmatch(code) or code not in module.codes:
                raise _error(
                    config,
                    f"module {module.name!r}: {rule.__name__}.CODE must be a string literal of capital letters "
                    'then digits in the class body (CODE = "FT101")',
                )
            rules[code] = rule
    return rules


def _import(config: Config, name: str) -> list[ModuleType]:
    """The module `name` (a package: it and its modules), imported with the project root
    first on sys.path; any error is a LocalRuleError naming the module and the error."""
    root = os.fspath(config.root)
    added = root not in sys.path
    if added:
        sys.path.insert(0, root)
    current = name
    try:
        module = importlib.import_module(name)
        modules = [module]
        for info in sorted(pkgutil.iter_modules(getattr(module, "__path__", None) or []), key=lambda m: m.name):
            current = f"{name}.{info.name}"
            modules.append(importlib.import_module(current))
        return modules
    except Exception as err:  # noqa: BLE001 - the project's code: any error is reported, as one line
        detail = " ".join(str(err).split())
        raise _error(config, f"importing {current!r} failed: {type(err).__name__}: {detail}") from None
    finally:
        if added and root in sys.path:
            sys.path.remove(root)


# -- docs -----------------------------------------------------------------------------------


class _LazyDocs(Mapping[str, RuleDoc]):
    """code -> RuleDoc, importing the rules only when a reporter reads a doc."""

    def __init__(self, extra: Mapping[str, RuleDoc] | None = None, config: Config | None = None) -> None:
        self._extra = dict(extra or {})
        self._config = config
        self._docs: dict[str, RuleDoc] | None = None

    def _load(self) -> dict[str, RuleDoc]:
        if self._docs is None:
            docs = {PARSE_ERROR_CODE: PARSE_ERROR_DOC}
            docs.update({code: rule.docs() for code, rule in rules_for(self._config).items()})
            docs.update(self._extra)
            self._docs = docs
        return self._docs

    def __getitem__(self, code: str) -> RuleDoc:
        return self._load()[code]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


def all_docs(extra: Mapping[str, RuleDoc] | None = None, config: Config | None = None) -> Mapping[str, RuleDoc]:
    """code -> RuleDoc of every rule (with `config`, its local rules too), loaded lazily."""
    return _LazyDocs(extra, config)
