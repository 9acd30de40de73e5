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
from dataclasses import dataclass

__all__ = ["GlobError", "glob_to_regex", "compile_glob", "has_magic", "GitIgnore", "GitIgnoreRule"]


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


def glob_to_regex(pattern: str, *, strict: bool = True, braces: bool = True, dir_self: bool = True) -> str:
    """Translate a glob to a regex source (no anchors; match it with ``fullmatch``).

    ``strict``: raise :class:`GlobError` on malformed input instead of reading it literally.
    ``braces``: support ``{a,b}`` alternation (configuration globs; git has none).
    ``dir_self``: a trailing ``/**`` also matches the directory itself (``build/**`` matches
    ``build``), which lets the walker prune it; off for gitignore, where ``dir/**`` plus a later
    ``!dir/keep.py`` must still descend into ``dir``.
    """
    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        at_component_start = i == 0 or pattern[i - 1] == "/"
        if ch == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            stars = j - i
            component_end = j == n or pattern[j] == "/"
            if stars >= 2 and at_component_start and component_end:
                if j == n:
                    if i == 0:
                        out.append(".*")
                    elif dir_self and out and out[-1] == "/":
                        out.pop()
                        out.append("(?:/.*)?")
                    else:
                        out.append(".*")
                    i = j
                else:  # "**/"
                    out.append("(?:.*/)?")
                    i = j + 1
                continue
            out.append("[^/]*")
            i = j
            continue
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
        elif ch == "{" and braces:
            end, parts = _find_brace_end(pattern, i)
            if end == -1:
                if strict:
                    raise GlobError("unclosed '{'")
                out.append(re.escape(ch))
            else:
                alts = [glob_to_regex(p, strict=strict, braces=braces, dir_self=dir_self) for p in parts]
                out.append("(?:" + "|".join(alts) + ")")
                i = end
        elif ch == "\\":
            if i + 1 == n:
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
        i += 1
    source = "".join(out)
    if strict:
        try:
            re.compile(source)
        except re.error as err:
            raise GlobError(err.msg) from None
    return source


def compile_glob(pattern: str, **kwargs) -> re.Pattern[str]:
    """Compile ``pattern`` (see :func:`glob_to_regex`) to a regex to use with ``fullmatch``."""
    return re.compile(glob_to_regex(pattern, **kwargs), re.DOTALL)


# --------------------------------------------------------------------------------------------
# .gitignore


@dataclass(frozen=True)
class GitIgnoreRule:
    pattern: str  # as written (after trimming)
    regex: str  # source; full-matched against the path relative to the .gitignore's directory
    negated: bool
    dir_only: bool


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
    if not anchored:
        body = "(?:.*/)?" + body
    return GitIgnoreRule(original, body, negated, dir_only)


class GitIgnore:
    """The rules of one ignore file, matched against paths relative to its directory.

    ``match(rel, is_dir)`` returns True (ignored), False (re-included by a ``!`` rule) or None
    (no rule matches: defer to the enclosing ignore files). The last matching line wins, as in
    git; all lines are combined into one regex per kind (files, directories), tried in reverse
    line order, so a lookup costs one regex match however long the file is.
    """

    __slots__ = ("rules", "_file_re", "_file_neg", "_dir_re", "_dir_neg")

    def __init__(self, rules: list[GitIgnoreRule]):
        self.rules = tuple(rules)
        self._file_re, self._file_neg = self._combine([r for r in rules if not r.dir_only])
        self._dir_re, self._dir_neg = self._combine(list(rules))

    @classmethod
    def from_lines(cls, lines) -> "GitIgnore":
        rules = []
        for line in lines:
            rule = _parse_line(line)
            if rule is not None:
                rules.append(rule)
        return cls(rules)

    @classmethod
    def from_text(cls, text: str) -> "GitIgnore":
        return cls.from_lines(text.splitlines())

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> "GitIgnore | None":
        """Parse an ignore file; None when it cannot be read (missing, unreadable, a directory)."""
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            return None
        return cls.from_text(data.decode("utf-8", "surrogateescape"))

    @staticmethod
    def _combine(rules: list[GitIgnoreRule]):
        if not rules:
            return None, ()
        ordered = list(reversed(rules))
        source = "|".join("(" + r.regex + ")" for r in ordered)
        # Rule regexes hold no capturing groups, so group k is the k-th alternative.
        return re.compile("(?:" + source + r")\Z", re.DOTALL), tuple(r.negated for r in ordered)

    def __bool__(self) -> bool:
        return bool(self.rules)

    def match(self, rel: str, is_dir: bool) -> bool | None:
        if is_dir:
            regex, neg = self._dir_re, self._dir_neg
        else:
            regex, neg = self._file_re, self._file_neg
        if regex is None:
            return None
        m = regex.match(rel)
        if m is None:
            return None
        return not neg[m.lastindex - 1]
