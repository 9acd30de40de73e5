"""Pull-request-level checks (PR001–PR004): the title, the description and the diff as a whole.

Their findings have no file line (``path=""``, ``line=0``); every reporter puts them at the
top (github-review: in the review body).  They need the diff (:mod:`ftlint.review.diff`)
and, for "which changed lines are fault-path code", the lint run's own scope: a
:class:`FaultScope` asks the run's project index (:mod:`ftlint.index.project`) and fault paths
(:class:`ftlint.analysis.faultpath.FaultPaths`), made from the one project scan of the review's lint
(``engine.lint_paths(..., keep_scope=True)``), and maps lines to their functions.

* PR001 empty-description: no description, or vLLM's template left unfilled.
* PR002 title-not-implemented: the title says "evict"/"zero" but the diff adds no such call
  (directly or through a project helper that makes one).
* PR003 untested-fault-path: fault-path code changed, no test file changed.
* PR004 unrelated-change: fault-path lines deleted or changed that neither the title's
  actions nor the description explain.
* PR005 defect-left-in-edited-code: findings the filter dropped, on unchanged lines of a
  function the change edits (found by :mod:`ftlint.review.unchanged`; no title needed).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ftlint.core import vocabulary as V
from ftlint.core.finding import Finding, RuleDoc, Severity
from ftlint.index.discovery import is_python_path
from ftlint.index.project import outline_module
from ftlint.report import code_span
from ftlint.review.diff import Diff, FileDiff, show_file

if TYPE_CHECKING:
    from ftlint.index.project import Function, ModuleInfo
    from ftlint.syntax import ir

__all__ = [
    "DIFF_CODES",
    "PR_CODES",
    "SCOPE_CODES",
    "FaultScope",
    "PullRequest",
    "check_pull_request",
    "claimed_actions",
    "description_gaps",
    "is_test_path",
    "left_behind",
    "pr_docs",
]

# --------------------------------------------------------------------------------------------
# rule docs


def _doc(code: str, name: str, summary: str, what: str, why: str, example: str, use_instead: str) -> RuleDoc:
    return RuleDoc(
        code=code,
        name=name,
        summary=summary,
        what_it_does=what,
        why_bad=why,
        example=example,
        use_instead=use_instead,
        severity=Severity.WARNING,
        url="",  # links come from the user's `docs-url` setting (see docs/review.md)
        extra={"Scope": "Pull-request check: runs in `ftlint review` when `--title` / `--body-file` are given."},
    )


_DOCS = {
    "PR001": _doc(
        "PR001",
        "empty-description",
        "Pull request description is empty or still the unfilled template",
        "Reports a pull request whose description is empty, or is vLLM's template with one of its "
        "*Purpose*, *Test Plan* or *Test Result* sections left without text of its own "
        "(HTML comments, the template's placeholder lines and its checklist do not count).",
        "A fault-path change is only reviewable with its purpose and evidence: which fault, which "
        "requests, what was run and what it showed. An empty *Test Result* on a fault handler usually "
        "means the failure path was never exercised.",
        "# PR description\n## Purpose\n\n## Test Plan\n\n## Test Result\n",
        "# PR description\n## Purpose\n"
        "# Evict the unconfirmed tail of every running request before resuming it.\n"
        "## Test Plan\n# pytest tests/v1/fault_tolerance -k evict\n"
        "## Test Result\n# 12 passed; a new request no longer hits never-computed KV.\n",
    ),
    "PR002": _doc(
        "PR002",
        "title-not-implemented",
        "The title claims an action the diff does not contain",
        "Reads the actions a title claims (*evict*, *zero*) and reports each one the diff does not "
        "add: no added call to an eviction primitive (`"
        + "`, `".join(sorted(V.EVICT_PRIMITIVES))
        + "`) for *evict*, no added call that records blocks for zeroing (`"
        + "`, `".join(sorted(V.ZEROING_PRIMITIVES))
        + "`) for *zero*, directly or through a project helper the added code calls.",
        'Reviewers and release notes trust the title. A PR titled "Evict and zero contaminated '
        'blocks" that only evicts leaves stale KV in Mamba/mixed-precision caches, and nobody looks '
        "for the missing half.",
        "# title: Evict and zero contaminated KV blocks on fault\n"
        "def _evict_tail(self, request):\n    self.kv_cache_manager.evict_blocks(tail_ids)",
        "# title: Evict and zero contaminated KV blocks on fault\n"
        "def _evict_tail(self, request):\n"
        "    self.kv_cache_manager.record_blocks_for_zeroing(request.request_id, start)\n"
        "    self.kv_cache_manager.evict_blocks(tail_ids)",
    ),
    "PR003": _doc(
        "PR003",
        "untested-fault-path",
        "Fault-path code changed without any test change",
        "Reports a diff that adds, changes or deletes lines inside fault-path functions (fault "
        "handlers and everything they reach, as `ftlint check` scopes them, plus `fault-paths` "
        "files) while no test file (`tests/`, `test_*.py`, `*_test.py`, `conftest.py`) changes.",
        "Fault paths run only when something already failed, so nothing in ordinary CI exercises "
        "them: an untested change there ships untested. A test can fail a step on vLLM's real "
        "scheduler (schedule, drop the output, call the handler) on CPU.",
        "# diff: vllm/v1/fault_tolerance/engine_core_sentinel.py only",
        "# diff: vllm/v1/fault_tolerance/engine_core_sentinel.py\n"
        "#       tests/v1/fault_tolerance/test_resume_evicts_tail.py",
    ),
    "PR004": _doc(
        "PR004",
        "unrelated-change",
        "Fault-path lines removed or changed that the title does not explain",
        "Reports deleted or modified lines inside fault-path functions that none of the actions "
        "the title claims explains (a line explains itself when it names a primitive of a claimed "
        "action, or reappears elsewhere in the diff: moved code) and that the description does "
        "not mention either (naming an identifier of the removed line, e.g. "
        "`async_tokens_to_discard`, counts as explaining it).",
        "Drive-by edits hide in fault-handler PRs: a removed stale-output reset or counter line "
        "changes what happens to every request after a fault, and a reviewer reading an "
        '"evict ..." PR does not look for it.',
        "# title: Evict the unconfirmed tail on fault\n"
        "-            request.async_tokens_to_discard = request.num_output_placeholders",
        "# title: Evict the unconfirmed tail on fault\n"
        "# description: Also drops the `async_tokens_to_discard` line: in a fault the\n"
        "# failed step's frame never arrives, so it dropped the first good frame.",
    ),
    "PR005": _doc(
        "PR005",
        "defect-left-in-edited-code",
        "A function the change edits still has findings on lines the change did not touch",
        "Lists the findings on unchanged lines of each function the diff edits (an added, "
        "modified or deleted line inside it). `--filter added` keeps only findings on changed "
        "lines; these are shown in the review's summary instead of inline (GitHub comments only "
        "on diff lines). Runs with `--filter added` or `diff-context` (with `file` or `none` "
        "the findings are reported themselves), with or without `--title`.",
        "A fix that edits a fault handler but leaves its defect on a line it did not touch "
        "looks clean when only changed lines are reviewed: the handler still drops the frame, "
        "or still resets the whole prefix cache, after the pull request that was meant to fix it.",
        "# diff: adds a resume branch to on_fault\n"
        "def on_fault(self, exc):\n"
        "    scheduler.reset_prefix_cache()   # unchanged line: FT005 left behind\n"
        "+   if self.resume:\n"
        "+       self._resume_running(scheduler)",
        "# the same pull request also replaces the whole-cache reset\n"
        "def on_fault(self, exc):\n"
        "-   scheduler.reset_prefix_cache()\n"
        "+   self._evict_unconfirmed_tails(scheduler)\n"
        "+   if self.resume:\n"
        "+       self._resume_running(scheduler)",
    ),
}

PR_CODES = tuple(_DOCS)
#: the checks that need neither --title nor --body-file (they read the lint's findings)
DIFF_CODES = ("PR005",)
#: the checks that ask which changed lines are fault-path code (FaultScope)
SCOPE_CODES = ("PR002", "PR003", "PR004")


def pr_docs() -> dict[str, RuleDoc]:
    """The PR rules' docs, for ``emit(..., extra_docs=pr_docs())``."""
    return dict(_DOCS)


def _finding(code: str, message: str) -> Finding:
    doc = _DOCS[code]
    return Finding(
        path="",
        line=0,
        column=0,
        end_line=0,
        end_column=0,
        code=code,
        name=doc.name,
        message=message,
        severity=doc.severity,
    )


def _code(text: str) -> str:
    return code_span(text)


# --------------------------------------------------------------------------------------------
# PR001: the description


REQUIRED_SECTIONS = ("Purpose", "Test Plan", "Test Result")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_DETAILS = re.compile(r"<details\b.*?(?:</details\s*>|\Z)", re.S | re.I)
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_BOLD_HEADING = re.compile(r"^\s{0,3}(?:\*\*|__)\s*(.+?)\s*:?\s*(?:\*\*|__)\s*:?\s*$")
# Lines vLLM's templates (current and older) put there for the author to replace.
_PLACEHOLDERS = (
    re.compile(r"fill in the pr description", re.I),
    re.compile(r"before submitting,? please read", re.I),
    re.compile(r"^\W*fix(es)?\s+#x+\b", re.I),
    re.compile(r"link existing issues this pr will resolve", re.I),
    re.compile(r"^\W*(todo|tbd|tba|wip|n/?a yet|\.\.\.|…)\W*$", re.I),
)
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"), None)


def _normalize_heading(text: str) -> str:
    text = re.sub(r"[*_`]", "", text)
    text = re.sub(r"\(optional\)", "", text, flags=re.I)
    return re.sub(r"\s+", " ", text).strip(" :：").casefold()


def _is_text(line: str) -> bool:
    """Does this line say something of the author's own?"""
    line = line.translate(_INVISIBLE).strip()
    if not line:
        return False
    if re.fullmatch(r"(?:[-*_=]\s*){3,}", line):  # thematic break / setext underline
        return False
    if re.fullmatch(r"[-*+>]\s*(\[[ xX]?\])?\s*", line):  # bare bullet or checkbox
        return False
    if re.fullmatch(r"</?[A-Za-z][^>]*>", line):  # a lone HTML tag
        return False
    return not any(p.search(line) for p in _PLACEHOLDERS)


def _clean_body(body: str) -> str:
    body = body.replace("\r\n", "\n").replace("\r", "\n").translate(_INVISIBLE)
    body = _HTML_COMMENT.sub("", body)
    return _DETAILS.sub("", body)


def description_gaps(body: str | None) -> list[str] | None:
    """None when the description is fine; else what is missing (``[]``: it is empty as a whole)."""
    if body is None:
        return []
    lines = _clean_body(body).split("\n")
    sections: dict[str, bool] = {}
    current: str | None = None
    current_level = 0
    free_text = False
    for line in lines:
        heading = _HEADING.match(line)
        level = len(heading.group(1)) if heading else 0
        title = heading.group(2) if heading else None
        if heading is None:
            bold = _BOLD_HEADING.match(line)
            if bold and _normalize_heading(bold.group(1)) in _REQUIRED_KEYS:
                title, level = bold.group(1), 7
        if title is not None:
            key = _normalize_heading(title)
            if key in _REQUIRED_KEYS:
                current, current_level = _REQUIRED_KEYS[key], level
                sections.setdefault(current, False)
                continue
            if current is not None and level <= current_level:
                current = None  # a sibling heading ends the section
            if current is None:
                continue  # other headings are not text
            continue
        if _is_text(line):
            if current is not None:
                sections[current] = True
            else:
                free_text = True
    if not sections:
        return None if free_text else []
    missing = [name for name in REQUIRED_SECTIONS if not sections.get(name, False) and name in sections]
    return missing or None


_REQUIRED_KEYS = {name.casefold(): name for name in REQUIRED_SECTIONS}
_REQUIRED_KEYS.update({"test results": "Test Result", "test plans": "Test Plan", "motivation": "Purpose"})


def check_description(body: str | None) -> list[Finding]:
    gaps = description_gaps(body)
    if gaps is None:
        return []
    if not gaps:
        return [_finding("PR001", "The pull request description is empty (or only the template's placeholder text)")]
    names = gaps[0] if len(gaps) == 1 else ", ".join(gaps[:-1]) + " and " + gaps[-1]
    section = "section is" if len(gaps) == 1 else "sections are"
    return [
        _finding(
            "PR001",
            f"The description's {names} {section} still empty (template text and HTML comments do not count): "
            f"say what the change is for, how it was tested and what the test showed",
        )
    ]


# --------------------------------------------------------------------------------------------
# actions a title claims (PR002) and what explains a removed line (PR004)


@dataclass(frozen=True)
class Action:
    name: str
    pattern: re.Pattern
    primitives: frozenset  # calls that implement it (PR002)
    identifiers: frozenset  # names whose removal/change it explains (PR004)
    checked: bool  # PR002 asks for an added call
    what: str  # "call that records blocks for zeroing"
    #: the effects (ftlint.syntax.ir Effect kinds) whose removal or change it explains (PR004),
    #: made directly or through a helper: resuming replaces the abort, so *preempt* explains a free
    kinds: frozenset = frozenset()
    #: names whose reading it explains on a line that has no effect of its own (PR004): an
    #: eviction computes the unconfirmed tail from the tail-boundary fields
    reads: frozenset = frozenset()


def _words(*names: Iterable[str]) -> frozenset:
    out: set[str] = set()
    for group in names:
        out.update([group] if isinstance(group, str) else group)
    return frozenset(out)


ACTIONS: tuple[Action, ...] = (
    Action(
        "evict",
        re.compile(r"\bevict(?:s|ed|ing|ion|ions)?\b|驱逐|淘汰|逐出", re.I),
        V.EVICT_PRIMITIVES,
        _words(V.EVICT_PRIMITIVES, V.REQ_TO_BLOCKS, V.BLOCK_LIST_CALLS, V.BLOCK_LIST_ATTRS),
        True,
        "eviction call",
        frozenset({"evict"}),
        frozenset(V.TAIL_BOUNDARY),
    ),
    Action(
        "zero",
        re.compile(r"(?<![-\w])zero(?:s|es|ed|ing)?\b|清零|置零|归零", re.I),
        V.ZEROING_PRIMITIVES,
        _words(V.ZEROING_PRIMITIVES, "needs_kv_cache_zeroing"),
        True,
        "call that records blocks for zeroing",
        frozenset(),
        frozenset(V.TAIL_BOUNDARY),
    ),
    Action(
        "preempt",
        re.compile(r"\bpreempt\w*|\bresum(?:e|es|ed|ing|ption)\b|抢占|恢复", re.I),
        V.PREEMPT_PRIMITIVES,
        _words(V.PREEMPT_PRIMITIVES, V.COUNTER_FIELDS, V.DROP_STALE_OUTPUT),
        False,
        "preemption",
        frozenset({"preempt", "free", "reset-counter"}),
    ),
    Action(
        "stale-output",
        re.compile(r"\bstale\b|\bdiscard\w*|\bdrop(?:s|ped|ping)?\b|in[- ]flight|丢弃", re.I),
        frozenset(),
        _words(V.ASYNC_DISCARD_FIELD, V.DROP_STALE_OUTPUT, V.COUNTER_FIELDS),
        False,
        "stale-output bookkeeping",
        frozenset({"reset-counter"}),
    ),
    Action(
        "abort",
        re.compile(r"\babort\w*|\bfinish\w*|\bfree(?:s|d|ing)?\b|中止", re.I),
        V.FREE_PRIMITIVES,
        _words(V.FREE_PRIMITIVES, V.KV_MANAGER_FREE[1]),
        False,
        "abort",
        frozenset({"free"}),
    ),
    Action(
        "prefix-cache",
        re.compile(r"prefix[- _]cach\w*|前缀缓存", re.I),
        frozenset(),
        _words(V.RESET_PREFIX_CACHE),
        False,
        "prefix-cache change",
        frozenset({"reset-prefix-cache"}),
    ),
)


def claimed_actions(title: str) -> list[tuple[Action, str]]:
    """(action, the title's word for it), in title order."""
    found = []
    for action in ACTIONS:
        match = action.pattern.search(title or "")
        if match:
            found.append((match.start(), action, match.group(0)))
    return [(a, w) for _, a, w in sorted(found, key=lambda t: t[0])]


# --------------------------------------------------------------------------------------------
# fault-path scope of the changed files

#: (first line, last line, function): decorators to the last line of the body
_Span = tuple[int, int, "Function"]


class FaultScope:
    """Which lines of the changed files are fault-path code, as the lint run scoped them.

    ``linter`` is the run's :class:`ftlint.lint.lint_runner.FileLinter`
    (``engine.lint_paths(..., keep_scope=True).scope``): its project index and fault paths
    come from the one project scan the review's lint made (prefilter, stat table, cache).
    None when no changed Python file was linted: then only handler names are known."""

    def __init__(self, linter, diff: Diff, files: Sequence[FileDiff], config) -> None:
        from ftlint.analysis.faultpath import handler_matcher  # LibCST: imported only when a review runs them

        self._is_handler = handler_matcher(config.handler_patterns())
        self._paths = linter.fault_paths if linter is not None else None
        self._spans: dict[str, list[_Span]] = {}  # repo path -> its functions' spans
        self._whole: dict[str, bool] = {}  # repo path -> a `fault-paths` file (all in scope)
        self._added_calls: dict[str, set[str]] = {}  # primitive reached -> {call text}
        self._memo: dict[Function, frozenset[tuple[str, str]]] = {}  # helper -> what it does
        if linter is None:
            return
        for fd in files:
            if not fd.path or fd.binary or not is_python_path(fd.path):
                continue
            key = Path(os.path.abspath(diff.root / fd.path))
            info = linter.project.module_at(key) if key.is_file() else None
            if info is None:
                continue
            spans = _function_spans(info)
            self._spans[fd.path] = spans
            self._whole[fd.path] = info in linter.fault_paths.whole_modules
            for start, end, fn in spans:
                if any(start <= n <= end for n in fd.added):
                    self._note_added_calls(fn, fd)

    def _note_added_calls(self, fn: Function, fd: FileDiff) -> None:
        from ftlint.syntax import ir

        for effect, start, end in self._effects_with_lines(fn):
            if effect.kind != "reset-counter" and any(n in fd.added for n in range(start, end + 1)):
                text = ir.code_of(effect.node.func) if hasattr(effect.node, "func") else effect.name
                for kind, name in self.reached(fn, effect):
                    if kind != "reset-counter":
                        self._added_calls.setdefault(name, set()).add(text)

    @staticmethod
    def _effects_with_lines(fn: Function) -> list[tuple[ir.Effect, int, int]]:
        """``fn``'s effects with the (first, last) file line of each; unknown lines left out."""
        from ftlint.syntax import ir

        effects = list(ir.iter_effects(fn.ir))
        lines = _lines_of(fn, [e.node for e in effects])
        return [(e, start, end) for e, (start, end) in zip(effects, lines, strict=True) if start]

    def reached(self, fn: Function, effect: ir.Effect) -> frozenset[tuple[str, str]]:
        """What an effect does: (effect kind, primitive or counter name; a preempt that drops
        stale output is named ``_preempt_request(drop_stale_output)``) for itself, or for a
        call of a project helper every effect the helper makes, through its own helpers (the
        calls resolved as the fault paths resolve them; recursion is opaque). An unresolved
        call does nothing known: the empty set."""
        from ftlint.syntax import ir

        if effect.kind == "reference":
            return frozenset()  # a function named in a method table does nothing there
        if effect.kind != "call":
            # a preempt that drops the next frame is not the same call as one that keeps it
            name = f"{effect.name}({V.DROP_STALE_OUTPUT})" if effect.drop_stale_output else effect.name
            return frozenset({(effect.kind, name)})
        if self._paths is None:
            return frozenset()
        target = self._paths.target(fn, effect)
        if target is None:
            return frozenset()
        callee = target[0]
        if callee not in self._memo:
            self._memo[callee] = frozenset()  # in progress: a recursive call adds nothing
            found: set[tuple[str, str]] = set()
            for inner in ir.iter_effects(callee.ir):
                found |= self.reached(callee, inner)
            self._memo[callee] = frozenset(found)
        return self._memo[callee]

    def line_effects(self, fn: Function, lines: Iterable[int]) -> frozenset[tuple[str, str]]:
        """What the code on these lines of ``fn`` does (:meth:`reached` of every effect that
        covers one of them). ``fn`` may be a function of the base revision (:func:`base_functions`):
        its calls resolve against that file and, through its imports, today's project."""
        wanted = set(lines)
        found: set[tuple[str, str]] = set()
        for effect, start, end in self._effects_with_lines(fn):
            if wanted.intersection(range(start, end + 1)):
                found |= self.reached(fn, effect)
        return frozenset(found)

    def defines(self, path: str, qualname: str) -> bool:
        """Whether today's ``path`` (a linted changed file) has a function named ``qualname``."""
        return any(span[2].qualname == qualname for span in self._spans.get(path, ()))

    def added_primitives(self) -> frozenset[str]:
        """Every primitive name the diff's added lines reach (directly or through helpers)."""
        return frozenset(self._added_calls)

    # -- questions -----------------------------------------------------------
    def new_line_function(self, path: str, line: int) -> tuple[bool, str | None]:
        """(is fault-path code, enclosing function qualname) for a new-side line."""
        spans = self._spans.get(path)
        if spans is None:
            return False, None
        whole = self._whole.get(path, False)
        span = _innermost(spans, line)
        if span is None:
            return whole, None
        assert self._paths is not None  # spans are only known with a linter
        return self._paths.in_fault_path(span[2]) or whole, span[2].qualname

    def old_line_function(self, fd: FileDiff, line: int, base_spans: list[_Span]) -> tuple[bool, str | None]:
        """The same for a deleted (old-side) line, via the function of the same name today."""
        span = _innermost(base_spans, line)
        spans = self._spans.get(fd.path) if fd.path else None
        whole = self._whole.get(fd.path, False) if fd.path else False
        if span is None:
            return whole, None
        before = span[2]
        if spans is not None:
            now = next((s[2] for s in spans if s[2].qualname == before.qualname), None)
            if now is not None:
                assert self._paths is not None
                return self._paths.in_fault_path(now) or whole, before.qualname
            if whole:
                return True, before.qualname
        return self._is_handler(before), before.qualname

    def added_primitive_calls(self, names: Iterable[str]) -> list[str]:
        wanted = set(names)
        return sorted({text for name, texts in self._added_calls.items() if name in wanted for text in texts})


def _function_spans(info: ModuleInfo) -> list[_Span]:
    """The project index's functions of a module with their lines (Function.line_range:
    an outlined module knows them without LibCST); those whose lines are unknown are left out."""
    spans: list[_Span] = []
    for fn in info.functions:
        lines = fn.line_range()
        if lines is not None:
            spans.append((lines[0], lines[1], fn))
    return spans


def _lines_of(fn: Function, nodes: list) -> list[tuple[int, int]]:
    """(first line, last line) in the file of each node of ``fn``'s tree; (0, 0) when unknown."""
    from ftlint.syntax.positions import ranges_of

    parsed = fn.tree()
    if parsed is None:
        return [(0, 0)] * len(nodes)
    tree, offset = parsed.module, parsed.line_offset
    ranges = ranges_of(tree, nodes)
    found = []
    for node in nodes:
        where = ranges.get(id(node))
        found.append((where.start.line + offset, where.end.line + offset) if where else (0, 0))
    return found


def base_functions(path: str, text: str) -> list[_Span]:
    """The functions of a file as it was at the base revision, named as the project index
    names them (its outline: Python's parser, no LibCST); [] when it does not parse."""
    info = outline_module(Path(path), text)
    return _function_spans(info) if info is not None else []


def _innermost(spans: list[_Span], line: int) -> _Span | None:
    best = None
    for span in spans:
        if span[0] <= line <= span[1] and (best is None or span[0] >= best[0]):
            best = span
    return best


# --------------------------------------------------------------------------------------------
# PR003 / PR004 helpers

_TEST_NAME = re.compile(r"(^test_.*|.*_test|^conftest)\.pyi?$")


def is_test_path(path: str) -> bool:
    parts = path.replace("\\", "/").split("/")
    if any(p in ("tests", "test", "testing") for p in parts[:-1]):
        return True
    return bool(_TEST_NAME.match(parts[-1]))


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STOP = frozenset(
    {
        "self",
        "cls",
        "None",
        "True",
        "False",
        "return",
        "for",
        "in",
        "if",
        "else",
        "elif",
        "not",
        "and",
        "or",
        "is",
        "del",
        "pass",
        "with",
        "as",
        "try",
        "except",
        "finally",
        "raise",
        "while",
        "break",
        "continue",
        "lambda",
        "yield",
        "await",
        "async",
        "def",
        "class",
        "import",
        "from",
        "list",
        "set",
        "dict",
        "len",
        "range",
        "scheduler",
        "engine",
        "request",
        "requests",
        "req",
        "running",
        "waiting",
    }
)


def _identifiers(line: str) -> list[str]:
    code = _strip_comment(line)
    return [w for w in _IDENT.findall(code) if w not in _STOP]


def _strip_comment(line: str) -> str:
    """The code part of a line (a '#' outside quotes starts a comment; good enough for one line)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#":
            return line[:i]
    return line


def _is_code(line: str) -> bool:
    return bool(_strip_comment(line).strip())


def _mentions(body: str, line: str) -> bool:
    """Does the description name something the removed line did?"""
    if not body:
        return False
    stripped = _strip_comment(line).strip()
    if stripped and stripped in body:
        return True
    for word in _identifiers(line):
        if ("_" in word or len(word) >= 6) and re.search(rf"(?<![A-Za-z0-9_]){re.escape(word)}(?![A-Za-z0-9_])", body):
            return True
    return False


def _short(line: str, limit: int = 80) -> str:
    line = line.strip()
    return line if len(line) <= limit else line[: limit - 1] + "…"


# --------------------------------------------------------------------------------------------
# PR005: findings left on unchanged lines of an edited function


def left_behind(groups: Iterable, shown: int = 5) -> list[Finding]:
    """One PR005 per edited function: ``groups`` are :class:`ftlint.review.unchanged.Left`."""
    findings = []
    for group in groups:
        items = sorted(group.findings, key=lambda f: f.sort_key)
        listed = "; ".join(f"{f.code} at line {f.line}: {f.message}" for f in items[:shown])
        more = f"; and {len(items) - shown} more" if len(items) > shown else ""
        findings.append(
            _finding(
                "PR005",
                f"The change edits {_code(group.function)} in {_code(group.path)} but leaves "
                f"{len(items)} finding(s) on lines it did not change: {listed}{more}",
            )
        )
    return findings


# --------------------------------------------------------------------------------------------
# entry point


@dataclass
class PullRequest:
    title: str | None = None  # None: not given (PR002/PR004 do not run)
    body: str | None = None  # None: not given (PR001 does not run)
    body_given: bool = False


def check_pull_request(
    pr: PullRequest,
    diff: Diff,
    files: Sequence[FileDiff],
    config,
    linter=None,
    enabled: Iterable[str] = PR_CODES,
) -> list[Finding]:
    """Run the enabled PR checks. ``files`` is the part of the diff under review (PATH
    arguments); test files are looked for in the whole diff. ``linter``: the review lint's
    scope (:class:`FaultScope`); None when no changed Python file was linted."""
    enabled = set(enabled)
    findings: list[Finding] = []
    if "PR001" in enabled and pr.body_given:
        findings += check_description(pr.body)
    if not enabled & set(SCOPE_CODES):
        return findings
    scope = FaultScope(linter, diff, files, config)

    if "PR002" in enabled and pr.title is not None:
        findings += _check_title(pr.title, scope)

    fault_changes, fault_deletions = _fault_changes(scope, diff, files)
    if "PR003" in enabled and fault_changes and not any(is_test_path(f.display) for f in diff.files):
        where = []
        for path, functions in fault_changes.items():
            names = [n for n in functions if n]
            shown = ", ".join(_code(n) for n in names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
            where.append(f"{_code(path)} ({shown})" if shown else _code(path))
        findings.append(
            _finding(
                "PR003",
                "The diff changes fault-path code in "
                + "; ".join(where)
                + " but no test file: add a test that fails a step and runs the fault handler",
            )
        )
    if "PR004" in enabled and pr.title is not None:
        findings += _check_unrelated(pr, fault_deletions, diff, scope)
    return findings


def _check_title(title: str, scope: FaultScope) -> list[Finding]:
    findings = []
    seen = set()
    for action, word in claimed_actions(title):
        if not action.checked or action.name in seen:
            continue
        seen.add(action.name)
        if scope.added_primitive_calls(action.primitives):
            continue
        names = ", ".join(_code(n + "()") for n in sorted(action.primitives))
        findings.append(
            _finding(
                "PR002",
                f"The title says {_code(word)} but the diff adds no {action.what} ({names}), "
                f"directly or through a helper it calls",
            )
        )
    return findings


#: A deleted (or modified) fault-path line: its file, the qualname of its function and that
#: function as it was at the base revision (None outside a function), its old line number, its text.
_Deletion = tuple[FileDiff, "str | None", "Function | None", int, str]


def _fault_changes(scope: FaultScope, diff: Diff, files: Sequence[FileDiff]):
    """({path: [function qualnames with changed fault-path lines]}, [deleted fault-path lines])."""
    changes: dict[str, list[str]] = {}
    deletions: list[_Deletion] = []

    def note(path: str, fn: str | None) -> None:
        names = changes.setdefault(path, [])
        if fn and fn not in names:
            names.append(fn)

    for fd in files:
        if fd.binary or not is_python_path(fd.display):
            continue
        if fd.path:
            for line, text in sorted(fd.added.items()):
                if not _is_code(text):
                    continue
                fault, fn = scope.new_line_function(fd.path, line)
                if fault:
                    note(fd.path, fn)
        if fd.deleted:
            base_text = show_file(diff.base_commit, fd.old_path, diff.root) if fd.old_path else None
            # placed where the file is, so its imports resolve as today's file's do
            spans = base_functions(os.path.abspath(diff.root / fd.old_path), base_text) if base_text else []
            for line, text in sorted(fd.deleted.items()):
                if not _is_code(text):
                    continue
                fault, fn = scope.old_line_function(fd, line, spans)
                if fault:
                    note(fd.display, fn)
                    span = _innermost(spans, line)
                    deletions.append((fd, fn, span[2] if span else None, line, text))
    return changes, deletions


#: Names of vLLM's fault-path state (stale-output counters and flags, block lists, the
#: primitives): a line that reads or writes one is fault-path bookkeeping even with no call.
_BOOKKEEPING = frozenset().union(*(a.identifiers for a in ACTIONS), V.ALL_COUNTER_FIELDS)

_DOES = {
    "evict": "evicts blocks",
    "free": "frees requests",
    "preempt": "preempts requests",
    "reset-prefix-cache": "resets the prefix cache",
    "reset-counter": "resets stale-output counters",
}


def _check_unrelated(pr: PullRequest, deletions: list[_Deletion], diff: Diff, scope: FaultScope) -> list[Finding]:
    """PR004. A removed or changed fault-path line is its business only when it does something
    the fault-path facts model: an effect (evict, free, preempt, prefix-cache reset, counter
    reset), made on the line or by a project helper it calls, or a read or write of the
    stale-output and block bookkeeping. Other lines (logging, plumbing, docstrings) are
    unknown, and unknown never reports. Such a line is explained when a claimed action covers
    what it did (by effect, not by the helper's name), when the diff still does it (moved
    code, or the same primitives reached from added lines), or when the description names it."""
    actions = [a for a, _ in claimed_actions(pr.title or "")]
    explained_ids: set[str] = set()
    explained_kinds: set[str] = set()
    explained_calls: set[str] = set()
    explained_reads: set[str] = set()
    for action in actions:
        explained_ids |= action.identifiers
        explained_kinds |= action.kinds
        explained_calls |= action.primitives
        explained_reads |= action.reads
    added_texts = {
        _strip_comment(t).strip() for fd in diff.files for t in fd.added.values() if _strip_comment(t).strip()
    }
    still_made = scope.added_primitives()
    body = pr.body or ""
    groups: dict[tuple[str, str | None], list[tuple[int, str]]] = {}
    does: dict[tuple[str, str | None], set[str]] = {}
    for fd, fn, base_fn, line, text in deletions:
        code = _strip_comment(text).strip()
        if code in added_texts:
            continue  # moved or re-indented, not removed
        if fn is not None and fd.path and not scope.defines(fd.path, fn):
            continue  # the whole function is deleted: plain in the diff, not a drive-by edit
        identifiers = set(_IDENT.findall(code))
        effects = scope.line_effects(base_fn, [line]) if base_fn is not None else frozenset()
        if not effects and not identifiers & _BOOKKEEPING:
            continue  # nothing the fault-path facts model: unknown
        if explained_ids & identifiers or (not effects and explained_reads & identifiers):
            continue
        if any(kind in explained_kinds or name in explained_calls for kind, name in effects):
            continue
        calls = {name for kind, name in effects if kind != "reset-counter"}
        if calls and calls <= still_made:
            continue  # the added lines still make these calls: moved into or out of a helper
        if _mentions(body, text):
            continue
        key = (fd.old_path or fd.display, fn)
        groups.setdefault(key, []).append((line, text))
        does.setdefault(key, set()).update(_DOES[kind] for kind, _ in effects if kind in _DOES)
    findings = []
    claimed = ", ".join(_code(a.name) for a in actions) if actions else "none"
    for key, lines in groups.items():
        path, fn = key
        shown = "; ".join(f"line {n}: {_code(_short(t))}" for n, t in lines[:2])
        more = f" and {len(lines) - 2} more line(s)" if len(lines) > 2 else ""
        where = f"{_code(fn)} in {_code(path)}" if fn else _code(path)
        what = f", code that {' and '.join(sorted(does[key]))}" if does[key] else ""
        findings.append(
            _finding(
                "PR004",
                f"Removes or changes fault-path code in {where} ({shown}{more}{what}) that the title's actions "
                f"({claimed}) do not explain: explain it in the description or move it to its own pull request",
            )
        )
    return findings
