"""Glob compilation and ``.gitignore`` matching, standard library only.

Two users:

* configuration globs (``exclude``, ``per-file-ignores``, ``fault-paths``, ``fault-handlers``):
  :func:`glob_to_regex` with ``strict=True`` rejects malformed patterns (an unclosed ``[`` or ``{``,
  a trailing backslash, a bad range) with :class:`GlobError`;
* ``.gitignore`` files: :class:`GitIgnore` implements git's rules (``man gitignore``): comments,
  blank lines, trailing-space trimming, ``\\`` escapes, ``!`` negation, a trailing ``/`` for
  directories only, a leading or middle ``/`` anchoring the pattern to the file's directory,
  ``*``, ``?``, ``[...]`` and ``**``. Malformed patterns are taken literally, never an error
  (git does not fail on them either).

Glob semantics shared by both: ``*`` and ``?`` and ``[...]`` never match ``/``; ``**`` as a whole
path component spans directories (``**/x``, ``a/**/b``, ``a/**``); any other run of ``*`` is a
single ``*``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import cast

__all__ = ["GitIgnore", "GitIgnoreRule", "GlobError", "compile_glob", "glob_to_regex", "has_magic"]


class GlobError(ValueError):
    """A malformed glob; ``str(err)`` says what is wrong (``unclosed '['``)."""


_MAGIC = frozenset("*?[{\\")


def has_magic(pattern: str) -> bool:
    return any(ch in _MAGIC for ch in pattern)


def _find_class_end(pat: str, i: int) -> int:
    """Index of the ``]`` closing the class opened at ``pat[i] == '['``, or -1."""
    j = i + 1
    n = len(pat)
    if j < n and pat[j] in "!^":
        j += 1
    if j < n and pat[j] == "]":
        j += 1
    while j < n and pat[j] != "]":
        if pat[j] == "\\":
            j += 1
        j += 1
    return j if j < n else -1


def _find_brace_end(pat: str, i: int) -> tuple[int, list[str]]:
    """(index of the matching ``}``, top-level alternatives) for ``pat[i] == '{'``; (-1, []) if unclosed."""
    depth = 0
    parts: list[str] = []
    start = i + 1
    j = i
    n = len(pat)
    while j < n:
        ch = pat[j]
        if ch == "\\":
            j += 2
            continue
        if ch == "[":
            end = _find_class_end(pat, j)
            if end != -1:
                j = end + 1
                continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                parts.append(pat[start:j])
                return j, parts
        elif ch == "," and depth == 1:
            parts.append(pat[start:j])
            start = j + 1
        j += 1
    return -1, []


def _class_regex(body: str) -> str:
    """Regex for the inside of a glob character class (without the brackets)."""
    negate = False
    if body[:1] in ("!", "^"):
        negate = True
        body = body[1:]
    out = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            i += 1
            ch = body[i]
            out.append(re.escape(ch) if ch != "-" else r"\-")
        elif ch == "-":
            out.append("-")
        elif ch in "\\^[]&~|":
            out.append("\\" + ch)
        else:
            out.append(ch)
        i += 1
    inner = "".join(out)
    if negate:
        return "[^/" + inner + "]"
    return "(?!/)[" + inner + "]"


#: At most this many patterns from one glob's ``{a,b}`` alternatives (``{a,b}{c,d}`` is four).
MAX_BRACE_ALTERNATIVES = 256

# Tokens of a translated glob besides fixed-width regex atoms (one character each).
_STAR = "\x00*"  # `*` inside a component
_GLOBSTAR_SLASH = "\x00**/"  # `**/` as whole components
_TAIL_ANY = ".*"  # a final `**`
_TAIL_DIR_SELF = "(?:/.*)?"  # a final `/**` that also matches the directory itself
_SEPARATORS = frozenset(("/", _TAIL_ANY, _TAIL_DIR_SELF))


def glob_to_regex(pattern: str, *, strict: bool = True, braces: bool = True, dir_self: bool = True) -> str:
    """Translate a glob to a regex source (no anchors; match it with ``fullmatch``).

    ``strict``: raise :class:`GlobError` on malformed input instead of reading it literally.
    ``braces``: support ``{a,b}`` alternation (configuration globs; git has none).
    ``dir_self``: a trailing ``/**`` also matches the directory itself (``build/**`` matches
    ``build``), which lets the walker prune it; off for gitignore, where ``dir/**`` plus a later
    ``!dir/keep.py`` must still descend into ``dir``.

    The regex cannot backtrack catastrophically (a pattern comes from a repository's
    pyproject or .gitignore): ``{a,b}`` is expanded first; a ``**/`` between components
    commits to the leftmost place the components after it match, repeated ones collapse;
    inside a component every ``*`` but the last commits to the leftmost match of the text
    after it (atomic groups). Both are exact: what follows starts with a wildcard that can
    skip whatever a later choice would. So matching is about linear in the path per pattern.
    """
    try:
        alternatives = _alternatives(pattern, strict=strict, braces=braces, dir_self=dir_self)
    except _TooManyAlternatives:
        if strict:
            raise GlobError(f"more than {MAX_BRACE_ALTERNATIVES} alternatives from '{{...}}'") from None
        alternatives = _alternatives(pattern, strict=strict, braces=False, dir_self=dir_self)
    sources = [_assemble(tokens) for tokens in alternatives]
    source = sources[0] if len(sources) == 1 else "(?:" + "|".join(sources) + ")"
    if strict:
        try:
            re.compile(source)
        except re.error as err:
            raise GlobError(err.msg) from None
    return source


class _TooManyAlternatives(Exception):
    pass


def _alternatives(pattern: str, *, strict: bool, braces: bool, dir_self: bool) -> list[list[str]]:
    """The glob as token lists, one per ``{a,b}`` alternative: regex atoms (each matches one
    character, never ``/``), ``/``, and the wildcard tokens above. Each alternative inside
    braces is read as a glob of its own (as before: ``{**,x}``'s ``**`` is whole)."""
    prefixes: list[list[str]] = [[]]  # the alternatives up to the last brace group
    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "*":
            i = _stars(pattern, i, out, dir_self)
            continue
        if ch == "{" and braces:
            end, parts = _find_brace_end(pattern, i)
            if end == -1:
                if strict:
                    raise GlobError("unclosed '{'")
                out.append(re.escape(ch))
            else:
                alts = [
                    alt
                    for part in parts
                    for alt in _alternatives(part, strict=strict, braces=braces, dir_self=dir_self)
                ]
                if len(prefixes) * len(alts) > MAX_BRACE_ALTERNATIVES:
                    raise _TooManyAlternatives
                prefixes = [prefix + out + alt for prefix in prefixes for alt in alts]
                out = []
                i = end
        else:
            i = _atom(pattern, i, out, strict)
        i += 1
    return [prefix + out for prefix in prefixes]


def _stars(pattern: str, i: int, out: list[str], dir_self: bool) -> int:
    """The run of ``*`` at ``i`` as one token on ``out`` (``**`` as a whole component: any
    directories); returns where the glob goes on."""
    n = len(pattern)
    j = i
    while j < n and pattern[j] == "*":
        j += 1
    at_component_start = i == 0 or pattern[i - 1] == "/"
    component_end = j == n or pattern[j] == "/"
    if j - i < 2 or not (at_component_start and component_end):
        out.append(_STAR)
        return j
    if j < n:  # "**/"
        out.append(_GLOBSTAR_SLASH)
        return j + 1
    if i != 0 and dir_self and out and out[-1] == "/":
        out.pop()
        out.append(_TAIL_DIR_SELF)
    else:
        out.append(_TAIL_ANY)
    return j


def _atom(pattern: str, i: int, out: list[str], strict: bool) -> int:
    """The character (a class, an escape) at ``i`` as a token on ``out``; returns the index
    of its last character."""
    ch = pattern[i]
    if ch == "?":
        out.append("[^/]")
    elif ch == "[":
        end = _find_class_end(pattern, i)
        if end == -1:
            if strict:
                raise GlobError("unclosed '['")
            out.append(re.escape(ch))
        else:
            out.append(_class_regex(pattern[i + 1 : end]))
            i = end
    elif ch == "\\":
        if i + 1 == len(pattern):
            if strict:
                raise GlobError("trailing backslash")
            out.append(re.escape(ch))
        else:
            i += 1
            out.append(re.escape(pattern[i]))
    elif ch == "/":
        out.append("/")
    else:
        out.append(re.escape(ch))
    return i


def _assemble(tokens: list[str]) -> str:
    """The regex source of a token list: the part before the first ``**/`` anchored, each part
    between two of them found at its leftmost place (atomic: it ends at a component boundary it
    fixes, and a later ``**/`` can skip to any later one), the last one anchored at the end."""
    parts: list[list[str]] = [[]]
    for token in tokens:
        if token == _GLOBSTAR_SLASH:
            parts.append([])
        else:
            parts[-1].append(token)
    source = _fixed(parts[0])
    if len(parts) > 1:
        for part in parts[1:-1]:
            if not part:
                continue  # "**/**/" is "**/"
            if part[-1] == "/" and _TAIL_ANY not in part and _TAIL_DIR_SELF not in part:
                source += "(?>(?:[^/]*+/)*?" + _fixed(part) + ")"
            else:
                source += "(?:[^/]*+/)*" + _fixed(part)
        source += "(?:[^/]*+/)*" + _fixed(parts[-1])
    return source


def _fixed(tokens: list[str]) -> str:
    """Tokens without ``**/``, component by component: in a component with several ``*``, the
    text between two of them is matched at its leftmost place and kept (atomic group)."""
    out: list[str] = []
    component: list[str] = []
    for token in [*tokens, "/"]:
        if token not in _SEPARATORS:
            component.append(token)
            continue
        stars = component.count(_STAR)
        if stars < 2:
            out.extend("[^/]*" if t == _STAR else t for t in component)
        else:
            segments: list[list[str]] = [[]]
            for t in component:
                if t == _STAR:
                    segments.append([])
                else:
                    segments[-1].append(t)
            out.extend(segments[0])
            for segment in segments[1:-1]:
                if segment:
                    out.append("(?>[^/]*?" + "".join(segment) + ")")
            out.append("[^/]*")
            out.extend(segments[-1])
        out.append(token)
        component = []
    out.pop()  # the "/" added above
    return "".join(out)


def compile_glob(pattern: str, **kwargs: bool) -> re.Pattern[str]:
    """Compile ``pattern`` (see :func:`glob_to_regex`) to a regex to use with ``fullmatch``."""
    return re.compile(glob_to_regex(pattern, **kwargs), re.DOTALL)


# --------------------------------------------------------------------------------------------
# .gitignore


@dataclass(frozen=True)
class GitIgnoreRule:
    pattern: str  # the line as written (after trimming)
    regex: str  # source, full-matched against the name (unanchored) or the relative path (anchored)
    negated: bool
    dir_only: bool
    anchored: bool  # matched against the path relative to the ignore file's directory
    tail: str  # a literal every match ends with ("" when unknown): a cheap prefilter


_TAIL_STOP = frozenset("*?]\\")


def _literal_tail(glob: str) -> str:
    i = len(glob)
    while i > 0 and glob[i - 1] not in _TAIL_STOP:
        i -= 1
    return glob[i:]


def _parse_line(line: str) -> GitIgnoreRule | None:
    line = line.rstrip("\r\n")
    if not line or line.startswith("#"):
        return None
    # Trailing spaces are dropped unless escaped with a backslash.
    stripped = line.rstrip(" ")
    if stripped != line and stripped.endswith("\\") and not stripped.endswith("\\\\"):
        stripped += " "
    line = stripped
    if not line:
        return None
    original = line
    negated = False
    if line.startswith("!"):
        negated = True
        line = line[1:]
    elif line.startswith("\\!") or line.startswith("\\#"):
        line = line[1:]
    dir_only = False
    if line.endswith("/") and not line.endswith("\\/"):
        dir_only = True
        line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    if line.startswith("/"):
        line = line[1:]
    if not line:
        return None
    body = glob_to_regex(line, strict=False, braces=False, dir_self=False)
    return GitIgnoreRule(original, body, negated, dir_only, anchored, _literal_tail(line))


_TAIL_KEY = 3  # rules are bucketed by the last (up to) 3 characters of their literal tail


_Hit = tuple[int, bool]  # (line, negated) of the matching rule


class _Bucket:
    """The rules of one tail key: literal rules by the exact subject they match (a dict
    lookup), the others as one alternation per kind of entry, highest line first, so one
    regex call finds the last matching line (a name per alternative tells which)."""

    __slots__ = ("dir_regex", "exact", "file_regex", "hits")

    def __init__(self, entries: list[tuple[int, GitIgnoreRule]]) -> None:
        self.exact: dict[str, tuple[_Hit | None, _Hit | None]] = {}  # subject -> (as a file, as a dir)
        self.hits: dict[str, _Hit] = {}
        patterns: list[tuple[int, GitIgnoreRule]] = []
        for line_no, rule in entries:  # ascending lines: a later rule replaces an earlier one
            hit = (line_no, rule.negated)
            if rule.regex == re.escape(rule.tail):  # no wildcard: matches its text only
                as_file, _ = self.exact.get(rule.tail, (None, None))
                self.exact[rule.tail] = (as_file if rule.dir_only else hit, hit)
            else:
                patterns.append((line_no, rule))
                self.hits[f"r{line_no}"] = hit
        highest_first = patterns[::-1]
        self.file_regex = _alternation([(n, r) for n, r in highest_first if not r.dir_only])
        self.dir_regex = _alternation(highest_first)

    def last(self, subject: str, is_dir: bool) -> _Hit | None:
        """The (line, negated) of the last rule of this bucket matching ``subject``."""
        exact = self.exact.get(subject)
        hit = exact[is_dir] if exact is not None else None
        regex = self.dir_regex if is_dir else self.file_regex
        if regex is not None:
            found = regex(subject)
            if found is not None:
                other = self.hits[cast(str, found.lastgroup)]
                if hit is None or other[0] > hit[0]:
                    hit = other
        return hit


def _alternation(rules: list[tuple[int, GitIgnoreRule]]) -> Callable[[str], re.Match[str] | None] | None:
    """One fullmatch over the rules' regexes, in the order given (the first alternative that
    matches the whole subject wins); the outermost group of each is named after its line."""
    if not rules:
        return None
    return re.compile("|".join(f"(?P<r{n}>{rule.regex})" for n, rule in rules), re.DOTALL).fullmatch


class GitIgnore:
    """The rules of one ignore file, matched against paths relative to its directory.

    ``match(rel, is_dir)`` returns True (ignored), False (re-included by a ``!`` rule) or None
    (no rule matches: defer to the enclosing ignore files). The last matching line wins, as in
    git. Rules are bucketed by the literal text they must end with (``*.so`` → ``.so``), so a
    lookup only tries the few rules that can match, however long the file is.
    """

    __slots__ = ("_tables", "rules")

    def __init__(self, rules: list[GitIgnoreRule]):
        self.rules = tuple(rules)
        # Two tables, names (unanchored rules) and paths (anchored rules): each maps a tail key
        # to the _Bucket of its rules.
        names: dict[str, list[tuple[int, GitIgnoreRule]]] = {}
        paths: dict[str, list[tuple[int, GitIgnoreRule]]] = {}
        for line_no, rule in enumerate(rules):
            key = rule.tail[-_TAIL_KEY:]
            (paths if rule.anchored else names).setdefault(key, []).append((line_no, rule))
        tables = []
        for table, anchored in ((names, False), (paths, True)):
            if table:
                lengths = tuple(sorted({len(k) for k in table}))
                tables.append((anchored, lengths, {k: _Bucket(v) for k, v in table.items()}))
        self._tables = tuple(tables)

    @classmethod
    def from_lines(cls, lines: Iterable[str]) -> GitIgnore:
        rules = []
        for line in lines:
            rule = _parse_line(line)
            if rule is not None:
                rules.append(rule)
        return cls(rules)

    @classmethod
    def from_text(cls, text: str) -> GitIgnore:
        return cls.from_lines(text.splitlines())

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> GitIgnore | None:
        """Parse an ignore file; None when it cannot be read (missing, unreadable, a directory)."""
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            return None
        return cls.from_text(data.decode("utf-8", "surrogateescape"))

    def __bool__(self) -> bool:
        return bool(self.rules)

    def match(self, rel: str, is_dir: bool) -> bool | None:
        """``rel``: the path relative to this file's directory, ``/``-separated."""
        best_line = -1
        verdict = None
        for anchored, lengths, table in self._tables:
            subject = rel if anchored else rel[rel.rfind("/") + 1 :]
            size = len(subject)
            for length in lengths:
                if length > size:
                    break
                bucket = table.get(subject[size - length :] if length else "")
                if bucket is None:
                    continue
                hit = bucket.last(subject, is_dir)
                if hit is not None and hit[0] > best_line:
                    best_line = hit[0]
                    verdict = not hit[1]
        return verdict
