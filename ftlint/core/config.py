"""``ftlint.toml``, or ``[tool.ftlint]`` in ``pyproject.toml`` → a frozen :class:`Config`.

Names and semantics follow ruff (``select``, ``extend-select``, ``ignore``, ``per-file-ignores``,
``exclude``, ``extend-exclude``, ``force-exclude``, ``respect-gitignore``, ``cache-dir``), plus
ftlint's own ``fault-handlers``, ``extend-fault-handlers``, ``fault-paths``, ``docs-url``,
``information-uri``, ``exhaustive-max-mb``, ``vllm-api`` and ``vllm-source``.  No rule takes options: an ``options`` table (once
reserved for per-rule options, never read) is an error that says to remove it.

Every problem is a :class:`ConfigError` whose ``str()`` is one line naming the file and the key::

    /repo/pyproject.toml: [tool.ftlint] select: unknown rule code or prefix 'FT9'

Standard library only.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from functools import cached_property
from pathlib import Path
from typing import Any

from ftlint.core.gitignore import GlobError, glob_to_regex, has_magic

__all__ = [
    "CONFIG_KEYS",
    "DEFAULT_EXCLUDES",
    "DEFAULT_FAULT_HANDLERS",
    "DEFAULT_FAULT_STEPS",
    "DEFAULT_SELECT",
    "CodeSelectors",
    "Config",
    "ConfigError",
    "find_config_file",
    "find_project_root",
    "load_config",
    "select_codes",
]

TABLE = "tool.ftlint"

#: ruff's default ``exclude`` list, minus ``site-packages`` (users lint an installed vLLM), plus
#: ``__pycache__`` and ftlint's own cache directory.
DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pyenv",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".ftlint_cache",
    ".svn",
    ".tox",
    ".venv",
    ".vscode",
    "__pycache__",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "venv",
)
DEFAULT_SELECT: tuple[str, ...] = ("FT",)
DEFAULT_FAULT_HANDLERS: tuple[str, ...] = ("on_fault",)
#: Calls of an engine step: the `except` branches of a `try` around one are fault paths
#: (vLLM's EngineCore.step / step_with_batch_queue, the executor's execute_model, and the
#: busy loop, e.g. the fork's `fault_tolerant_wrapper` calling the wrapped `busy_loop_func`).
DEFAULT_FAULT_STEPS: tuple[str, ...] = ("step", "step_with_batch_queue", "execute_model", "*busy_loop*")
#: Accepted as selectors even when no registered rule starts with them.
ALWAYS_VALID_SELECTORS = frozenset({"ALL", "FT"})


class ConfigError(Exception):
    """Bad configuration; ``str(err)`` is one line naming the file and the key, never a traceback.

    ``ConfigError(message, path=None, key=None, table="tool.ftlint")``. ``table`` is the TOML
    table the key lives in (``""`` for a standalone ``ftlint.toml`` given with ``--config``);
    a ``key`` starting with ``--`` names a command-line option.
    """

    def __init__(self, message: str, path: Path | str | None = None, key: str | None = None, *, table: str = TABLE):
        self.message = message
        self.path = Path(path) if path is not None else None
        self.key = key
        self.table = table
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.key is not None:
            where = f"{self.key}: " if self.key.startswith("-") or not self.table else f"[{self.table}] {self.key}: "
        elif self.table and self.path is not None:
            where = f"[{self.table}] "
        prefix = f"{self.path}: " if self.path is not None else ""
        return f"{prefix}{where}{self.message}"


# --------------------------------------------------------------------------------------------
# glob matching shared by excludes, per-file-ignores and fault paths


def _norm_glob(pattern: str) -> str:
    if pattern.startswith("~"):
        pattern = os.path.expanduser(pattern)
    while pattern.startswith("./"):
        pattern = pattern[2:]
    if len(pattern) > 1:
        pattern = pattern.rstrip("/") or "/"
    return pattern


class _PathPatterns:
    """Ruff-style path patterns: without ``/`` a pattern matches a single name (a path component
    or the file name); with ``/`` it is a glob over the path relative to the project root (or,
    when absolute, over the absolute path). ``**`` spans directories; ``*`` does not cross ``/``.
    """

    __slots__ = ("abs_re", "name_re", "names", "rel_re")

    def __init__(self, patterns: Iterable[str], root: str):
        names: set[str] = set()
        name_globs: list[str] = []
        rel_globs: list[str] = []
        abs_globs: list[str] = []
        root_prefix = root.rstrip("/") + "/"
        for raw in patterns:
            pattern = _norm_glob(raw)
            if "/" not in pattern:
                if has_magic(pattern):
                    name_globs.append(glob_to_regex(pattern))
                else:
                    names.add(pattern)
            elif os.path.isabs(pattern):
                if pattern.startswith(root_prefix):
                    rel_globs.append(glob_to_regex(pattern[len(root_prefix) :]))
                else:
                    abs_globs.append(glob_to_regex(pattern))
            else:
                rel_globs.append(glob_to_regex(pattern))
        self.names = frozenset(names)
        self.name_re = _alternation(name_globs)
        self.rel_re = _alternation(rel_globs)
        self.abs_re = _alternation(abs_globs)

    def __bool__(self) -> bool:
        return bool(self.names or self.name_re or self.rel_re or self.abs_re)

    def match_name(self, name: str) -> bool:
        return name in self.names or (self.name_re is not None and self.name_re.fullmatch(name) is not None)

    def match_rel(self, rel: str) -> bool:
        return self.rel_re is not None and self.rel_re.fullmatch(rel) is not None

    def match_abs(self, abspath: str) -> bool:
        return self.abs_re is not None and self.abs_re.fullmatch(abspath) is not None

    def match_entry(self, name: str, rel: str | None, abspath: str) -> bool:
        """One walked entry: its name, its path relative to the root (None: outside it), absolute path."""
        if name in self.names:
            return True
        if self.name_re is not None and self.name_re.fullmatch(name) is not None:
            return True
        if rel is not None and self.rel_re is not None and self.rel_re.fullmatch(rel) is not None:
            return True
        return self.abs_re is not None and self.abs_re.fullmatch(abspath) is not None


def handler_name_matcher(patterns: Iterable[str]) -> Callable[[str], bool]:
    """Matcher for ``fault-handlers`` patterns on ``"func"`` / ``"Class.method"`` names: a
    pattern with a ``.`` matches the whole dotted name, one without the last component."""
    dotted_sources: list[str] = []
    plain_sources: list[str] = []
    for pattern in patterns:
        (dotted_sources if "." in pattern else plain_sources).append(glob_to_regex(pattern))
    dotted, plain = _alternation(dotted_sources), _alternation(plain_sources)

    def matches(qualname: str) -> bool:
        if dotted is not None and dotted.fullmatch(qualname):
            return True
        return plain is not None and plain.fullmatch(qualname.rpartition(".")[2]) is not None

    return matches


def _alternation(sources: list[str]) -> re.Pattern[str] | None:
    if not sources:
        return None
    return re.compile("|".join("(?:" + s + ")" for s in sources), re.DOTALL)


def _abs(path: Path | str) -> str:
    return os.path.normpath(os.path.abspath(os.fspath(path)))


def _relative_to(abspath: str, root: str) -> str | None:
    """``abspath`` relative to ``root`` in posix form ("" for the root itself), None if outside."""
    if abspath == root:
        return ""
    prefix = root if root.endswith(os.sep) else root + os.sep
    if abspath.startswith(prefix):
        rel = abspath[len(prefix) :]
        return rel.replace(os.sep, "/") if os.sep != "/" else rel
    return None


# --------------------------------------------------------------------------------------------
# Config


class CodeSelectors(frozenset[str]):
    """A frozenset of codes, prefixes and ``ALL`` whose ``in`` understands them: ``"FT001" in
    CodeSelectors({"FT0"})`` is True. Iterating yields the entries as written."""

    __slots__ = ()

    def __contains__(self, code: object) -> bool:
        if frozenset.__contains__(self, code):
            return True
        if not isinstance(code, str):
            return False
        return any(entry == "ALL" or code.startswith(entry) for entry in self)


@dataclass(frozen=True)
class Config:
    root: Path
    path: Path | None = None
    select: tuple[str, ...] = DEFAULT_SELECT
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDES
    extend_exclude: tuple[str, ...] = ()
    force_exclude: bool = False
    respect_gitignore: bool = True
    fault_handlers: tuple[str, ...] = DEFAULT_FAULT_HANDLERS
    extend_fault_handlers: tuple[str, ...] = ()
    fault_paths: tuple[str, ...] = ()
    #: names of engine-step calls (globs on the called name): `except` branches around one are fault paths
    fault_steps: tuple[str, ...] = DEFAULT_FAULT_STEPS
    cache_dir: str = ".ftlint_cache"
    #: template of a rule's documentation URL ("https://example.org/rules/{code}"); "" = no links
    docs_url: str = ""
    #: ftlint's home page as SARIF ``driver.informationUri`` / rdjson source url; "" = the
    #: installed distribution's Project-URL (Homepage, Documentation, Source) when it has one
    information_uri: str = ""
    #: --exhaustive parses files up to this size whole with LibCST (bigger: FT000, outlined)
    exhaustive_max_mb: float = 2.0
    #: vLLM's stale-output API generation of the linted code: "auto" (from the project's
    #: `Request` class, else the installed vLLM's source), "0.26" (async_tokens_to_discard,
    #: num_output_placeholders) or "0.27" (num_stale_output_tokens, drop_stale_output)
    vllm_api: str = "auto"
    #: a vLLM source tree to read vLLM's own methods from (`super().on_fault()` into
    #: `EngineCoreSentinel`): the directory holding the `vllm` package, absolute once read;
    #: "" = the installed vLLM's, else the summaries ftlint ships (analysis/vllm_summaries.py)
    vllm_source: str = ""
    #: the project's own rule modules (dotted module or package names, importable from the
    #: root or sys.path), registered beside the built-in rules (ftlint.lint.registry)
    rules: tuple[str, ...] = ()
    #: the TOML table the settings came from ("tool.ftlint"; "" for a standalone ftlint.toml),
    #: used to word error messages
    table: str = field(default=TABLE, compare=False, repr=False)

    def __post_init__(self) -> None:
        # Accept lists/str paths from callers that build a Config by hand; store immutables.
        set_ = object.__setattr__
        set_(self, "root", Path(_abs(self.root)))
        if self.path is not None:
            set_(self, "path", Path(self.path))
        for name in (
            "select",
            "extend_select",
            "ignore",
            "exclude",
            "extend_exclude",
            "fault_handlers",
            "extend_fault_handlers",
            "fault_paths",
            "fault_steps",
            "rules",
        ):
            set_(self, name, tuple(getattr(self, name)))
        pfi: Iterable[tuple[object, Iterable[str]]] = self.per_file_ignores  # or a Mapping, as given
        if isinstance(pfi, Mapping):
            pfi = pfi.items()
        set_(self, "per_file_ignores", tuple((str(g), tuple(codes)) for g, codes in pfi))

    def __reduce__(self) -> tuple[Callable[[dict[str, Any]], Config], tuple[dict[str, Any]]]:
        # Picklable for process pools: rebuild from plain values (the compiled matchers
        # cached on the instance do not travel).
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        return (_rebuild_config, (values,))

    # -- derived ---------------------------------------------------------------------------

    @cached_property
    def _root_str(self) -> str:
        return os.fspath(self.root)

    @cached_property
    def _root_real(self) -> str:
        return os.path.realpath(self._root_str)

    @cached_property
    def exclude_patterns(self) -> _PathPatterns:
        """The compiled ``exclude`` + ``extend-exclude`` matcher (the walker uses it directly)."""
        return _PathPatterns(self.exclude + self.extend_exclude, self._root_str)

    @cached_property
    def _per_file_ignores(self) -> tuple[tuple[re.Pattern[str], bool, bool, tuple[str, ...]], ...]:
        compiled = []
        for pattern, codes in self.per_file_ignores:
            negated = pattern.startswith("!")
            glob = _norm_glob(pattern[1:] if negated else pattern)
            compiled.append((re.compile(glob_to_regex(glob), re.DOTALL), "/" in glob, negated, codes))
        return tuple(compiled)

    @cached_property
    def _handler_matcher(self) -> Callable[[str], bool]:
        return handler_name_matcher(self.handler_patterns())

    @cached_property
    def _fault_path_re(self) -> re.Pattern[str] | None:
        return _alternation([glob_to_regex(_norm_glob(p)) for p in self.fault_paths])

    def relative_path(self, path: Path | str) -> str | None:
        """``path`` (absolute, or relative to the current directory) relative to the root, in posix
        form; None when it lies outside the root."""
        abspath = _abs(path)
        rel = _relative_to(abspath, self._root_str)
        if rel is None and self._root_real != self._root_str:
            rel = _relative_to(os.path.realpath(abspath), self._root_real)
        elif rel is None:
            real = os.path.realpath(abspath)
            if real != abspath:
                rel = _relative_to(real, self._root_real)
        return rel

    @property
    def cache_path(self) -> Path:
        """``cache_dir`` resolved against the root."""
        return Path(os.path.join(self._root_str, os.path.expanduser(self.cache_dir)))

    # -- contract --------------------------------------------------------------------------

    def handler_patterns(self) -> tuple[str, ...]:
        return self.fault_handlers + self.extend_fault_handlers

    def is_fault_handler(self, qualname: str) -> bool:
        """Whether a function matches ``fault-handlers``: ``qualname`` is ``"func"`` or
        ``"Class.method"``. A pattern with a ``.`` is matched against the whole dotted name (``*``
        crosses dots there: ``*Sentinel.retry``); one without against the last component, so the
        default ``on_fault`` matches both a function and any class's ``on_fault`` method."""
        return self._handler_matcher(qualname)

    def is_fault_path(self, path: Path | str) -> bool:
        """Whether ``path`` matches one of ``fault-paths`` (globs relative to the root)."""
        if self._fault_path_re is None:
            return False
        rel = self.relative_path(path)
        return rel is not None and self._fault_path_re.fullmatch(rel) is not None

    def is_excluded(self, path: Path | str) -> bool:
        """``exclude`` + ``extend-exclude`` against ``path`` and its ancestors (up to the root when
        ``path`` is under it, as ruff): a pattern without ``/`` matches any one component; with
        ``/`` it is a glob over the root-relative path; ``**`` spans directories."""
        patterns = self.exclude_patterns
        if not patterns:
            return False
        abspath = _abs(path)
        rel = self.relative_path(abspath)
        if rel is not None:
            if rel == "":
                return False
            parts = rel.split("/")
            for i, part in enumerate(parts):
                if patterns.match_name(part) or patterns.match_rel("/".join(parts[: i + 1])):
                    return True
            for ancestor in [abspath, *map(os.fspath, Path(abspath).parents)][: len(parts)]:
                if patterns.match_abs(os.fspath(ancestor)):
                    return True
            return False
        for ancestor in (abspath, *map(os.fspath, Path(abspath).parents)):
            name = os.path.basename(ancestor)
            if not name:
                break
            if patterns.match_name(name) or patterns.match_abs(ancestor):
                return True
        return False

    def ignored_codes_for(self, path: Path | str, known_codes: Iterable[str] | None = None) -> frozenset[str]:
        """The ``per-file-ignores`` entries that apply to ``path``: a pattern without ``/`` matches
        the file name, one with ``/`` the root-relative path; a leading ``!`` applies the entry to
        files that do *not* match. Returns a :class:`CodeSelectors` holding the entries as written
        (codes, prefixes or ``ALL``) whose ``code in result`` honours prefixes; pass
        ``known_codes`` to get the concrete codes instead."""
        if not self.per_file_ignores:
            return CodeSelectors()
        rel = self.relative_path(path)
        name = os.path.basename(_abs(path))
        out: set[str] = set()
        for regex, has_slash, negated, codes in self._per_file_ignores:
            subject = rel if has_slash else name
            matched = subject is not None and regex.fullmatch(subject) is not None
            if matched != negated:
                out.update(codes)
        if known_codes is not None:
            known = tuple(known_codes)
            return frozenset(c for c in known if any(_selector_matches(e, c) for e in out))
        return CodeSelectors(out)

    def hash(self) -> str:
        """A stable digest of everything that can change results (all keys but ``cache-dir``,
        ``docs-url``, ``information-uri``)."""
        payload = {}
        for f in fields(self):
            if f.name in ("path", "cache_dir", "table", "docs_url", "information_uri"):
                continue
            value = getattr(self, f.name)
            if isinstance(value, Path):
                value = os.fspath(value)
            payload[f.name] = value
        from ftlint.core.digests import digest  # only runs with a cache ask for it

        return digest(payload)

    def validate_codes(self, known_codes: Iterable[str]) -> None:
        """Raise :class:`ConfigError` naming the key for any code or prefix in ``select``,
        ``extend-select``, ``ignore`` or ``per-file-ignores`` that matches no known code."""
        known = tuple(known_codes)
        for key, entries in (("select", self.select), ("extend-select", self.extend_select), ("ignore", self.ignore)):
            for entry in entries:
                _check_selector(entry, known, self.path, key, self.table)
        for pattern, codes in self.per_file_ignores:
            for entry in codes:
                _check_selector(entry, known, self.path, f"per-file-ignores.{_toml_key(pattern)}", self.table)


def _rebuild_config(values: dict[str, Any]) -> Config:
    return Config(**values)


# --------------------------------------------------------------------------------------------
# selecting codes


def _selector_matches(entry: str, code: str) -> bool:
    return entry == "ALL" or code.startswith(entry)


def _specificity(entry: str) -> int:
    return 0 if entry == "ALL" else len(entry)


def _suggest(entry: str, known: Iterable[str]) -> str:
    upper = entry.upper()
    if upper != entry and (upper in ALWAYS_VALID_SELECTORS or any(c.startswith(upper) for c in known)):
        return f" (did you mean {upper!r}?)"
    return ""


def _check_selector(entry: str, known: tuple[str, ...], path: Path | None, key: str, table: str = TABLE) -> None:
    if not isinstance(entry, str) or not entry:
        raise ConfigError("empty rule code or prefix", path, key, table=table)
    if entry in ALWAYS_VALID_SELECTORS:
        return
    if not any(code.startswith(entry) for code in known):
        raise ConfigError(f"unknown rule code or prefix {entry!r}{_suggest(entry, known)}", path, key, table=table)


def select_codes(
    config_or_cli_select: Config | Iterable[str] | None,
    ignore: Iterable[str] = (),
    known_codes: Iterable[str] = (),
    *,
    extend_select: Iterable[str] = (),
    select_key: str = "--select",
    ignore_key: str = "--ignore",
    extend_select_key: str = "--extend-select",
    opt_in: Iterable[str] = (),
) -> frozenset[str]:
    """Resolve selectors (codes, prefixes such as ``FT``/``FT00``/``FT001``, or ``ALL``) against
    ``known_codes`` and return the enabled codes.

    * A :class:`Config`: its ``select`` + ``extend-select`` minus its ``ignore`` plus ``ignore``
      (extra command-line ignores); errors name the config file and key.
    * An iterable (the CLI's ``--select``; ``None`` means the default ``FT``): with ``ignore`` and
      ``extend_select``; errors name the option (``select_key`` …), e.g.
      ``--select: unknown rule code or prefix 'FT9'``.

    Any entry matching no known code raises :class:`ConfigError` (``ALL`` and ``FT`` are always
    accepted). Like ruff, the most specific matching entry decides each code and an ``ignore``
    wins a tie: ``select=["FT"], ignore=["FT001"]`` drops FT001; ``select=["FT001"],
    ignore=["FT"]`` keeps it.

    The ``opt_in`` codes (rules off by default, such as FT100) are selected only by ``ALL``
    or an entry more specific than ``FT`` (``FT1``, ``FT100``): the default ``FT`` (or an
    explicit one) leaves them off.
    """
    known = tuple(dict.fromkeys(known_codes))
    if isinstance(config_or_cli_select, Config):
        cfg = config_or_cli_select
        groups_select = [("select", cfg.select), ("extend-select", cfg.extend_select)]
        groups_ignore = [("ignore", cfg.ignore)]
        path = cfg.path
        table = cfg.table
        extra_ignore = tuple(ignore)
        if extra_ignore:
            groups_ignore.append((ignore_key, extra_ignore))
        extra_select = tuple(extend_select)
        if extra_select:
            groups_select.append((extend_select_key, extra_select))
    else:
        sel = DEFAULT_SELECT if config_or_cli_select is None else tuple(config_or_cli_select)
        groups_select = [(select_key, sel), (extend_select_key, tuple(extend_select))]
        groups_ignore = [(ignore_key, tuple(ignore))]
        path = None
        table = TABLE
    for groups in (groups_select, groups_ignore):
        for key, entries in groups:
            for entry in entries:
                _check_selector(entry, known, path if not key.startswith("-") else None, key, table)
    selects = [e for _, entries in groups_select for e in entries]
    ignores = [e for _, entries in groups_ignore for e in entries]
    enabled = set()
    off_by_default = frozenset(opt_in)
    for code in known:
        selecting = [e for e in selects if _selector_matches(e, code)]
        if code in off_by_default:
            selecting = [e for e in selecting if e == "ALL" or len(e) > len("FT")]
        best_select = max((_specificity(e) for e in selecting), default=None)
        if best_select is None:
            continue
        best_ignore = max((_specificity(e) for e in ignores if _selector_matches(e, code)), default=None)
        if best_ignore is None or best_select > best_ignore:
            enabled.add(code)
    return frozenset(enabled)


# --------------------------------------------------------------------------------------------
# loading


CONFIG_KEYS: tuple[str, ...] = (
    "select",
    "extend-select",
    "ignore",
    "per-file-ignores",
    "exclude",
    "extend-exclude",
    "force-exclude",
    "respect-gitignore",
    "fault-handlers",
    "extend-fault-handlers",
    "fault-paths",
    "fault-steps",
    "cache-dir",
    "docs-url",
    "information-uri",
    "exhaustive-max-mb",
    "vllm-api",
    "vllm-source",
    "rules",
)
_CODE_LIST_KEYS = ("select", "extend-select", "ignore")
_GLOB_LIST_KEYS = ("exclude", "extend-exclude", "fault-handlers", "extend-fault-handlers", "fault-paths", "fault-steps")
_BOOL_KEYS = ("force-exclude", "respect-gitignore")
VLLM_API_CHOICES = ("auto", "0.25", "0.26", "0.27")
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


def _type_name(value: object) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, dict):
        return "table"
    return type(value).__name__


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key)


class _Validator:
    def __init__(self, path: Path, table: str):
        self.path = path
        self.table = table

    def error(self, key: str | None, message: str) -> ConfigError:
        return ConfigError(message, self.path, key, table=self.table)

    def str_list(self, key: str, value: object) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise self.error(key, f"expected a list of strings, got {_type_name(value)}")
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise self.error(key, f"expected a list of strings, got {_type_name(item)} at index {i}")
        return tuple(value)

    def codes(self, key: str, value: object) -> tuple[str, ...]:
        items = self.str_list(key, value)
        for item in items:
            if not item:
                raise self.error(key, "empty string is not a rule code or prefix")
        return items

    def module_names(self, key: str, value: object) -> tuple[str, ...]:
        items = self.str_list(key, value)
        for item in items:
            if not _MODULE_NAME.fullmatch(item):
                raise self.error(key, f"expected a dotted module name such as 'myproject.lint_rules', got {item!r}")
        return tuple(dict.fromkeys(items))

    def glob(self, key: str, pattern: str) -> None:
        if not pattern:
            raise self.error(key, "empty string is not a valid glob")
        body = pattern[1:] if key.startswith("per-file-ignores") and pattern.startswith("!") else pattern
        try:
            glob_to_regex(_norm_glob(body))
        except GlobError as err:
            raise self.error(key, f"invalid glob {pattern!r}: {err}") from None

    def url(self, key: str, value: str) -> str:
        scheme, sep, rest = value.partition("://")
        if not (sep and scheme.isascii() and scheme.isalpha() and rest) or any(c.isspace() for c in value):
            raise self.error(key, f"expected an absolute URL (scheme://...), got {value!r}")
        return value

    def globs(self, key: str, value: object) -> tuple[str, ...]:
        items = self.str_list(key, value)
        for item in items:
            self.glob(key, item)
        return items

    def boolean(self, key: str, value: object) -> bool:
        if not isinstance(value, bool):
            raise self.error(key, f"expected a boolean, got {_type_name(value)}")
        return value

    def string(self, key: str, value: object) -> str:
        if not isinstance(value, str):
            raise self.error(key, f"expected a string, got {_type_name(value)}")
        return value


def _cache_dir(v: _Validator, key: str, value: object) -> str:
    path = v.string(key, value)
    if not path:
        raise v.error(key, "expected a non-empty path")
    return path


def _docs_url(v: _Validator, key: str, value: object) -> str:
    url = v.string(key, value)
    if "{code}" not in url and "{name}" not in url:
        raise v.error(key, 'expected a URL template with {code} or {name}, e.g. "https://example.org/rules/{code}"')
    return v.url(key, url)


def _information_uri(v: _Validator, key: str, value: object) -> str:
    url = v.string(key, value)
    return v.url(key, url) if url else ""  # "": not set


def _exhaustive_max_mb(v: _Validator, key: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise v.error(key, f"expected a positive number of megabytes, got {value!r}")
    return float(value)


def _vllm_api(v: _Validator, key: str, value: object) -> object:
    if value not in VLLM_API_CHOICES:
        raise v.error(key, f"expected one of {', '.join(map(repr, VLLM_API_CHOICES))}, got {value!r}")
    return value


def _vllm_source(v: _Validator, key: str, value: object) -> str:
    """The directory holding the `vllm` package (a checkout, an unpacked sdist), or that
    package itself; relative to the configuration file's directory.  "" is not set (the
    installed vLLM, else the shipped summaries), as ``--show-settings`` prints it."""
    text = v.string(key, value)
    if not text:
        return ""
    path = Path(os.path.abspath(os.path.join(v.path.parent, os.path.expanduser(text))))
    if path.name == "vllm" and (path / "__init__.py").is_file():
        path = path.parent
    if not (path / "vllm" / "__init__.py").is_file():
        raise v.error(key, f"no vllm package (vllm/__init__.py) under {os.fspath(path)!r}")
    return os.fspath(path)


def _per_file_ignores(v: _Validator, key: str, value: object) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise v.error(key, f"expected a table of glob = [codes], got {_type_name(value)}")
    entries = []
    for pattern, codes in value.items():
        v.glob(key, pattern)
        entries.append((pattern, v.codes(f"{key}.{_toml_key(pattern)}", codes)))
    return tuple(entries)


#: how each key's value is checked (and converted) into its Config field
_KEY_CHECKS: dict[str, Callable[[_Validator, str, object], object]] = {
    **dict.fromkeys(_CODE_LIST_KEYS, _Validator.codes),
    **dict.fromkeys(_GLOB_LIST_KEYS, _Validator.globs),
    **dict.fromkeys(_BOOL_KEYS, _Validator.boolean),
    "cache-dir": _cache_dir,
    "docs-url": _docs_url,
    "information-uri": _information_uri,
    "exhaustive-max-mb": _exhaustive_max_mb,
    "vllm-api": _vllm_api,
    "vllm-source": _vllm_source,
    "per-file-ignores": _per_file_ignores,
    "rules": _Validator.module_names,
}


def _check_key(v: _Validator, key: str) -> None:
    """A key of the table that is no setting: `options` (once reserved) or an unknown one."""
    if key == "options":
        raise v.error(key, "no rule takes options (the table was reserved and never read); remove it")
    if key not in CONFIG_KEYS:
        import difflib  # only for a misspelt key

        close = difflib.get_close_matches(key.replace("_", "-").lower(), CONFIG_KEYS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise v.error(None, f"unknown key {key!r}{hint}")


def _build_config(table: Mapping[str, object], path: Path, root: Path, table_name: str) -> Config:
    v = _Validator(path, table_name)
    kwargs: dict[str, Any] = {}  # Config's fields, of their several types
    for key, value in table.items():
        _check_key(v, key)
        kwargs[key.replace("-", "_")] = _KEY_CHECKS[key](v, key, value)
    return Config(root=root, path=path, table=table_name, **kwargs)


def _read_bytes(path: Path) -> bytes:
    """Read a file (a seam for tests)."""
    with open(path, "rb") as fh:
        return fh.read()


def _os_message(err: OSError) -> str:
    return err.strerror or str(err)


def _parse_toml(path: Path) -> dict[str, Any]:
    try:
        data = _read_bytes(path)
    except OSError as err:
        raise ConfigError(f"cannot read file: {_os_message(err)}", path, table="") from None
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise ConfigError(f"invalid TOML: not UTF-8 ({err.reason} at byte {err.start})", path, table="") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"invalid TOML: {err}", path, table="") from None


def _ftlint_table(doc: dict[str, Any], path: Path) -> dict[str, Any] | None:
    tool = doc.get("tool")
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise ConfigError(f"[tool] must be a table, got {_type_name(tool)}", path, table="")
    table = tool.get("ftlint")
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"[tool.ftlint] must be a table, got {_type_name(table)}", path, table="")
    return table


def find_project_root(cwd: Path | str) -> Path:
    """The git top-level at or above ``cwd`` (a directory holding ``.git``), else ``cwd``."""
    start = Path(_abs(cwd))
    for directory in (start, *start.parents):
        if os.path.lexists(os.path.join(directory, ".git")):
            return directory
    return start


def _config_from(doc: dict[str, Any], path: Path) -> Config:
    """One configuration file's document: with a ``[tool]`` table it is read as a pyproject (its
    ``[tool.ftlint]``, defaults if absent); any other holds the keys at top level."""
    if "tool" in doc:
        return _build_config(_ftlint_table(doc, path) or {}, path, path.parent, TABLE)
    return _build_config(doc, path, path.parent, "")


def _discover(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest configuration file at or above ``start`` and its document: in one directory
    ``ftlint.toml`` (keys at top level) always counts and wins, as ruff's ``ruff.toml`` over
    ``pyproject.toml``; a ``pyproject.toml`` counts only with a ``[tool.ftlint]`` table."""
    for directory in (start, *start.parents):
        standalone = directory / "ftlint.toml"
        if os.path.isfile(standalone):
            return standalone, _parse_toml(standalone)
        candidate = directory / "pyproject.toml"
        if os.path.isfile(candidate):
            doc = _parse_toml(candidate)
            if _ftlint_table(doc, candidate) is not None:
                return candidate, doc
    return None


def find_config_file(cwd: Path | str) -> Path | None:
    """The configuration file that applies in ``cwd``: in the nearest directory at or above it
    holding one, ``ftlint.toml`` (always) else a ``pyproject.toml`` with ``[tool.ftlint]``."""
    found = _discover(Path(_abs(cwd)))
    return found[0] if found is not None else None


def load_config(cwd: Path | str, explicit: Path | str | None = None) -> Config:
    """The configuration for a run started in ``cwd`` (the CLI's and the language server's).

    ``explicit`` (``--config FILE``) must exist and parse; relative to ``cwd``. A file with a
    ``[tool]`` table is read as a pyproject (its ``[tool.ftlint]``, defaults if absent); any other
    TOML file holds the keys at top level (like ``ruff.toml``). The root is the file's directory.

    Otherwise :func:`find_config_file`: the nearest directory at or above ``cwd`` with an
    ``ftlint.toml`` or a ``pyproject.toml`` that has a ``[tool.ftlint]`` table (one without is
    skipped, as ruff does), ``ftlint.toml`` winning in one directory; none: defaults rooted at
    the git top-level of ``cwd``, else ``cwd``.
    """
    cwd_path = Path(_abs(cwd))
    if explicit is not None:
        path = Path(_abs(cwd_path / explicit))
        return _config_from(_parse_toml(path), path)
    found = _discover(cwd_path)
    if found is not None:
        return _config_from(found[1], found[0])
    return Config(root=find_project_root(cwd_path), path=None)
