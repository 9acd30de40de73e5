"""The byte-level test that decides whether a file can define a fault handler.

Exact by construction (it may accept more files than hold a handler, never fewer): a
file defines a function matching a handler pattern only if its bytes contain `def` +
whitespace/line-continuations + a name that the pattern's last component matches. The
regex accepts every such file (and some more, e.g. the name in a string or a comment,
which only costs a parse):

* `*` becomes any run of identifier bytes, `?` and `[...]` any one identifier
  character (ASCII word byte or a run of non-ASCII bytes: one code point is 1-4 bytes
  in UTF-8), so non-ASCII names are never missed;
* in a dotted pattern a wildcard of the last component may also swallow a dot of the
  qualified name (fnmatch's `*` crosses dots: `A.b*` matches `A.bX.c`), so the name
  may be any identifier ending with the literal text after the last wildcard;
* a file whose coding cookie names another encoding than UTF-8 is always a candidate
  (its bytes need not spell the name in UTF-8; it may not even decode).

Before the regex, a plain substring test on each pattern's longest literal run (for
the default `on_fault`: `b"on_fault" in data`) rejects almost every file at memchr
speed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ftlint.core.cache import read_bytes
from ftlint.index.step_scan import guarded_functions, keep_found, outside_guards

_IDENT_CHAR = rb"(?:\w|[\x80-\xff]+)"
_IDENT_RUN = rb"[\w\x80-\xff]*"
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.MULTILINE)
_UTF8_NAMES = {b"utf-8", b"utf8", b"utf_8", b"utf-8-sig", b"utf_8_sig"}


#: ("lit", char) / ("wild", "*" | "?" | "[...]") tokens of an fnmatch pattern
Tokens = list[tuple[str, str]]


def _tokens(glob: str) -> Tokens:
    """("lit", char) / ("wild", "*" | "?" | "[...]") tokens of an fnmatch pattern (a class
    token holds its text)."""
    out: Tokens = []
    i = 0
    while i < len(glob):
        c = glob[i]
        if c in "*?":
            out.append(("wild", c))
        elif c == "[":
            j = i + 1
            if j < len(glob) and glob[j] == "!":
                j += 1
            if j < len(glob) and glob[j] == "]":
                j += 1
            j = glob.find("]", j)
            if j == -1:  # fnmatch treats an unclosed '[' as a literal
                out.append(("lit", c))
            else:
                out.append(("wild", glob[i : j + 1]))
                i = j
        else:
            out.append(("lit", c))
        i += 1
    return out


def _regex_of(tokens: Tokens) -> bytes:
    parts = []
    for kind, value in tokens:
        if kind == "lit":
            parts.append(re.escape(value).encode("utf-8"))
        elif value == "*":
            parts.append(_IDENT_RUN)
        else:
            parts.append(_IDENT_CHAR)
    return b"".join(parts)


def _longest_literal(tokens: Tokens) -> bytes:
    best, run = "", ""
    for kind, value in tokens:
        if kind == "lit":
            run += value
            best = max(best, run, key=len)
        else:
            run = ""
    return best.encode("utf-8")


def name_alternatives(pattern: str) -> list[Tokens]:
    """Token lists the defined function's name must match for `pattern` to match it."""
    last = pattern.rsplit(".", 1)[-1]
    tokens = _tokens(last)
    alternatives = [tokens]
    if "." in pattern:
        wild = [i for i, (kind, _) in enumerate(tokens) if kind == "wild"]
        if wild:
            alternatives.append([("wild", "*"), *tokens[wild[-1] + 1 :]])
    return alternatives


_DEF = rb"\bdef(?:\s|\\(?:\r\n?|\n))+"
_NAME_END = rb"(?![\w\x80-\xff])"
#: a defined name, whatever it is (for the globs checked on the name itself)
_ANY_DEF = re.compile(_DEF + rb"([\w\x80-\xff]+)" + _NAME_END)


def _backtracks(tokens: Tokens) -> bool:
    """Whether a regex of these tokens could backtrack more than linearly: a `*` with another
    wildcard (`*a*b` tries every split of a name; `?`'s run of non-ASCII bytes overlaps a `*`)."""
    wild = [value for kind, value in tokens if kind == "wild"]
    return "*" in wild and len(wild) > 1


def _glob_of(tokens: Tokens) -> str:
    return "".join(value for _, value in tokens)


def handler_regex(patterns: Iterable[str]) -> re.Pattern[bytes]:
    """One regex for the handler patterns' names (the part after the last '.' names the
    function) that cannot backtrack badly; the others are `name_globs`."""
    alternatives = [alt for p in patterns for alt in name_alternatives(p)]
    names = sorted({_regex_of(alt) for alt in alternatives if not _backtracks(alt)})
    body = b"|".join(names) if names else b"(?!x)x"
    return re.compile(_DEF + b"(?:" + body + b")" + _NAME_END)


def name_globs(patterns: Iterable[str]) -> re.Pattern[str] | None:
    """The names (one regex, linear: core.gitignore's globs commit to the leftmost place of
    the text between two `*`) that patterns with several wildcards, one a `*`, match: each
    defined name is tested with it, instead of one regex trying every split of the file."""
    return _glob_alternation({_glob_of(alt) for p in patterns for alt in name_alternatives(p) if _backtracks(alt)})


def _glob_alternation(globs: Iterable[str]) -> re.Pattern[str] | None:
    """One regex for names matching any of `globs` (linear: core.gitignore's globs), or None."""
    from ftlint.core.gitignore import glob_to_regex

    sources = ["(?:" + glob_to_regex(g, strict=False, braces=False) + ")" for g in sorted(set(globs))]
    return re.compile("|".join(sources), re.DOTALL) if sources else None


def _some_name_matches(names: re.Pattern[bytes], globs: re.Pattern[str], data: bytes) -> bool:
    """Whether a name `names` finds in `data` (its group 1) matches `globs`; a name that is
    not UTF-8 counts (the parser decides)."""
    for match in names.finditer(data):
        try:
            name = match.group(1).decode("utf-8")
        except UnicodeDecodeError:
            return True
        if globs.fullmatch(name):
            return True
    return False


def literal_anchors(patterns: Iterable[str]) -> tuple[bytes, ...]:
    """Substrings one of which every regex match contains (b"def" when a name has no literal)."""
    anchors = set()
    for pattern in patterns:
        for alt in name_alternatives(pattern):
            anchors.add(_longest_literal(alt) or b"def")
    return tuple(sorted(anchors))


def other_encoding(data: bytes) -> bool:
    """Whether a PEP 263 cookie in the first two lines names an encoding other than UTF-8."""
    end = data.find(b"\n")
    end = data.find(b"\n", end + 1) if end != -1 else -1
    if end == -1:
        end = len(data)
    if data.find(b"coding", 0, end) == -1:  # memchr speed, no copy: almost every file
        return False
    for match in _COOKIE.finditer(data[:end]):
        name = match.group(1).lower()
        return name not in _UTF8_NAMES and not name.startswith((b"utf-8-", b"utf_8_"))
    return False


#: between a called name and its `(`: whitespace, line continuations, closing parentheses
#: (`(self.step)()`)
_TO_CALL = rb"(?:\s|\\(?:\r\n?|\n)|\))*\("


class StepCalls:
    """Finds, in bytes, a call of an engine step (`fault-steps` globs on the called name,
    the last component of a dotted one) in a file that has an `except`: the files that may
    hold a step guard (ftlint.analysis.steps). Exact as the handler test is: such a call is
    `name` + optional whitespace, continuations or `)` + `(` in the bytes. A glob's `*` is
    a run of identifier bytes, `?`/`[...]` one identifier character; a glob with several
    wildcards tests each called name on its own (linear, as `name_globs`)."""

    def __init__(self, steps: Iterable[str]) -> None:
        from ftlint.core.config import handler_name_matcher

        self.steps = steps = tuple(steps)
        self.is_step = handler_name_matcher(steps)
        tokens = [_tokens(step) for step in steps]
        # plain names (the defaults): found with bytes.find, each place checked by a short match
        self.names = tuple(sorted({_glob_of(t).encode("utf-8") for t in tokens if all(k == "lit" for k, _ in t)}))
        # one bytes.find pass per name that holds no other name: a name holding one (`step`
        # in `step_with_batch_queue`) is read where that one is found
        self._anchored_names = {
            anchor: tuple((name, at) for name in self.names for at in range(len(name)) if name.startswith(anchor, at))
            for anchor in self.names
            if not any(other != anchor and other in anchor for other in self.names)
        }
        simple = sorted({_regex_of(t) for t in tokens if not _backtracks(t) and any(k == "wild" for k, _ in t)})
        self.regex = None
        if simple:
            self.regex = re.compile(rb"(?<![\w\x80-\xff])(?:" + b"|".join(simple) + rb")" + _NAME_END + _TO_CALL)
        # a call a glob matches spells the glob's longest literal: tested first, at memchr speed
        self.glob_anchors = tuple(sorted({_longest_literal(t) for t in tokens if _backtracks(t)}))
        self.globs = _glob_alternation(_glob_of(t) for t in tokens if _backtracks(t))

    def search(self, data: bytes) -> bool:
        """Whether a step guard may be in these bytes: a step call between a `try` and an
        `except` (the bytes test), in a `try` statement that guards it (its own lines
        parsed with `ast`, then the whole file: step_scan.py); a file `ast` cannot parse
        passes."""
        if self.cleared(data):
            return False
        guarded = guarded_functions(data, self.is_step, self.steps)
        return guarded is None or bool(guarded)  # a file `ast` cannot read: LibCST decides

    def cleared(self, data: bytes) -> bool:
        """Whether these bytes hold no step guard, shown without parsing the whole file: the
        bytes test, then each `try` statement before the last call alone (exact)."""
        calls = self._guardable_calls(data, first_only=False)
        if not calls:
            return True
        if not outside_guards(data, calls[-1], self.is_step, calls):
            return False
        keep_found(self.steps, data, {})  # no guard: what StepGuards asks next (step_scan.known)
        return True

    def calls_step(self, data: bytes) -> bool:
        """The bytes test alone: a step call, not on a comment line, after a `try` header
        (`try` + whitespace or continuations + `:`) and before an `except`. Exact: a guard's
        `try:` precedes the call in its body and its `except` follows, and a line whose first
        non-blank byte is `#` is a comment (or inside a string), never code."""
        return bool(self._guardable_calls(data, first_only=True))

    def _guardable_calls(self, data: bytes, *, first_only: bool) -> list[int]:
        """Where the calls passing the bytes test start, in order (the first alone with
        `first_only`); [] when none does."""
        last_except = data.rfind(b"except")  # first: most files have none
        if last_except == -1:
            return []
        after_try = _first_try_end(data, last_except)  # calls are read between the two
        found: set[int] = set()
        for at in self._call_starts(data, after_try, last_except) if after_try < last_except else ():
            if at not in found and not _on_comment_line(data, at):
                if first_only:
                    return [at]
                found.add(at)
        return sorted(found)

    def _call_starts(self, data: bytes, start: int, end: int) -> Iterator[int]:
        """Where a step call starts in data[start:end] (more places may be yielded)."""
        for anchor, names in self._anchored_names.items():
            yield from _name_calls(data, anchor, names, start, end)
        if self.regex is not None:
            for match in self.regex.finditer(data, start, end):
                yield match.start()
        if self.globs is None:
            return
        anchors = [anchor for anchor in self.glob_anchors if data.find(anchor, start, end) != -1]
        utf8 = not other_encoding(data)
        if not anchors and utf8:
            return
        if all(anchors) and utf8:
            # in UTF-8 a called name the glob matches spells the anchor: only those names
            for anchor in anchors:
                yield from self._anchored_calls(data, anchor, start, end)
            return
        for match in _ANY_CALL.finditer(data, start, end):
            if _glob_called(self.globs, match.group(1)):
                yield match.start()

    def _anchored_calls(self, data: bytes, anchor: bytes, start: int, end: int) -> Iterator[int]:
        """Where a called name holding `anchor` and matching a glob starts in data[start:end]."""
        globs = self.globs
        if globs is None:
            return
        at = data.find(anchor, start, end)
        while at != -1:
            name_start = at
            while name_start > start and _IDENT_BYTE.match(data, name_start - 1):
                name_start -= 1
            after = _NOT_IDENT_BYTE.search(data, at)
            name_end = after.start() if after is not None else len(data)
            call = _TO_CALL_RE.match(data, name_end, end)
            if call is not None and _glob_called(globs, data[name_start:name_end]):
                yield name_start
            at = data.find(anchor, max(name_end, at + 1), end)


def _glob_called(globs: re.Pattern[str], name: bytes) -> bool:
    try:
        return globs.fullmatch(name.decode("utf-8")) is not None
    except UnicodeDecodeError:
        return True  # not UTF-8: the parser decides


#: the rest of a `try` header after the keyword: whitespace or line continuations, a colon
_TRY_COLON = re.compile(rb"(?:\s|\\(?:\r\n?|\n))*:")


def _first_try_end(data: bytes, end: int) -> int:
    """Where the first `try` header (a whole `try`, then its colon) before `end` ends, or
    len(data) when there is none (bytes.find for the keyword: memchr speed)."""
    at = data.find(b"try", 0, end)
    while at != -1:
        if not (at and _IDENT_BYTE.match(data, at - 1)) and not _IDENT_BYTE.match(data, at + 3):
            colon = _TRY_COLON.match(data, at + 3)
            if colon is not None:
                return colon.end()
        at = data.find(b"try", at + 1, end)
    return len(data)


def _on_comment_line(data: bytes, at: int) -> bool:
    """Whether the first non-blank byte of the physical line holding `at` is a `#` before
    `at` (a comment, or a line of a string: no call there runs)."""
    start = max(data.rfind(b"\n", 0, at), data.rfind(b"\r", 0, at)) + 1
    return data[start:at].lstrip(b" \t\f").startswith(b"#")


_CALL_AFTER_NAME = re.compile(_NAME_END + _TO_CALL)
_IDENT_BYTE = re.compile(rb"[\w\x80-\xff]")


def _name_calls(
    data: bytes, anchor: bytes, names: tuple[tuple[bytes, int], ...], start: int, end: int
) -> Iterator[int]:
    """Where `name(` (a whole name, then whitespace, continuations or `)`) starts in
    data[start:end], for each (name, offset of `anchor` in it) of `names`: read where
    `anchor` is found."""
    at = data.find(anchor, start, end)
    while at != -1:
        for name, offset in names:
            begin = at - offset
            if begin < start or begin + len(name) > end or not data.startswith(name, begin):
                continue
            before = data[begin - 1 : begin] if begin else b""
            if not (before and _IDENT_BYTE.match(before)) and _CALL_AFTER_NAME.match(data, begin + len(name)):
                yield begin
        at = data.find(anchor, at + 1, end)


_ANY_CALL = re.compile(rb"(?<![\w\x80-\xff])([\w\x80-\xff]+)" + _TO_CALL)
_NOT_IDENT_BYTE = re.compile(rb"[^\w\x80-\xff]")
_TO_CALL_RE = re.compile(_TO_CALL)


class Prefilter:
    """Whether a file's bytes may define a fault handler (`patterns`) or hold a step guard
    (`steps`, see StepCalls)."""

    def __init__(self, patterns: Iterable[str], steps: Iterable[str] = ()) -> None:
        patterns = tuple(patterns)
        self.regex = handler_regex(patterns)
        self.globs = name_globs(patterns)
        self.anchors = literal_anchors(patterns) if patterns else ()
        steps = tuple(steps)
        self.steps = StepCalls(steps) if steps else None

    def matches(self, data: bytes) -> bool:
        return self.defines_handler(data) or (self.steps is not None and self.steps.search(data))

    def file_defines_handler(self, path: str) -> bool:
        """Whether the file at `path` may define a handler, by its bytes; a file that cannot
        be read may (the engine's test before it takes the linter's way)."""
        data = read_bytes(path)
        return data is None or self.defines_handler(data)

    def defines_handler(self, data: bytes) -> bool:
        for anchor in self.anchors:
            if anchor in data:
                break
        else:
            return other_encoding(data)
        return self.regex.search(data) is not None or self._glob_defined(data) or other_encoding(data)

    def _glob_defined(self, data: bytes) -> bool:
        """Whether a defined name matches one of the globs with several wildcards (a name
        that is not UTF-8 counts: the parser decides)."""
        return self.globs is not None and _some_name_matches(_ANY_DEF, self.globs, data)


class SubclassPattern:
    """Finds a class statement naming one of some classes among its bases, in bytes. A
    substring test on the names (memchr speed) runs first: almost no file names them."""

    def __init__(self, class_names: Iterable[str]) -> None:
        self.names = tuple(n.encode() for n in sorted(class_names))
        alternatives = b"|".join(re.escape(n) for n in self.names)
        # a name is whole when no identifier byte (ASCII word or UTF-8) touches it
        self.regex = re.compile(
            rb"class\s+" + _IDENT_RUN + rb"\s*\([^)]*(?<![\w\x80-\xff])(?:" + alternatives + rb")(?![\w\x80-\xff])"
        )

    def search(self, data: bytes) -> bool:
        return any(n in data for n in self.names) and self.regex.search(data) is not None


def subclass_pattern(class_names: Iterable[str]) -> SubclassPattern | None:
    """The pattern for subclasses of these classes, or None when there are none."""
    names = list(class_names)
    return SubclassPattern(names) if names else None


def _readable(paths: Iterable[str]) -> Iterator[tuple[str, bytes]]:
    """(path, bytes) of each file that can be read (what the scan reads with)."""
    for path in paths:
        data = read_bytes(path)
        if data is not None:
            yield path, data


def files_matching(pattern: SubclassPattern, paths: Iterable[str]) -> list[str]:
    """The readable files among `paths` whose bytes `pattern` finds a subclass in."""
    return [path for path, data in _readable(paths) if pattern.search(data)]


_CLASS_NAME = re.compile(rb"^[ \t]*class[ \t]+(\w+)(?=[ \t]*[(:])", re.MULTILINE)


def class_names_defined(paths: Iterable[str], patterns: Iterable[str] | None = None) -> set[str]:
    """The names of the classes these files define, read from their bytes before they are
    parsed: every handler class among them whose name is ASCII (a non-ASCII one is missed;
    the caller checks). With `patterns` (`fault-handlers`), only the files whose bytes may
    define a handler: a subclass inherits a handler, never a step guard."""
    handlers = Prefilter(patterns) if patterns is not None else None
    return {
        m.decode("ascii")
        for _, data in _readable(paths)
        if handlers is None or handlers.defines_handler(data)
        for m in _CLASS_NAME.findall(data)
    }
