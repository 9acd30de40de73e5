"""The LibCST side of a run: load fault-path modules into the project, then visit
each fault-path file once with all selected rules batched, and turn their reports
into findings (positions, suppressions, fix edits)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import libcst as cst
from libcst.metadata import MetadataWrapper

from ftlint.analysis.faultpath import FaultPaths, handler_matcher
from ftlint.analysis.steps import StepGuards
from ftlint.core import progress
from ftlint.core.config import Config
from ftlint.core.finding import Finding
from ftlint.core.source import failure_finding, split_lines
from ftlint.core.suppressions import parse_suppressions
from ftlint.index.project import FileProbe, Function, ModuleInfo, Project
from ftlint.lint.registry import rules_for
from ftlint.lint.rule import FileContext, Report, Rule, ScopeTracker
from ftlint.lint.unused_noqa import CODE as UNUSED_NOQA
from ftlint.lint.unused_noqa import unused_noqa_findings
from ftlint.syntax import textedits
from ftlint.syntax.positions import ranges_of

if TYPE_CHECKING:  # pragma: no cover
    from libcst._position import CodeRange

    from ftlint.analysis.memo import ScopeMemo
    from ftlint.index.outline import OutlineStore, Segment
    from ftlint.lint.unit_cache import Kept, UnitCache
    from ftlint.syntax.textedits import Edit, Replacement

#: `--exhaustive` parses files in a process pool from this many files on (below it, or
#: on one CPU, a pool costs more than it saves). Normal runs parse a handful of files
#: and never start one.
PARALLEL_THRESHOLD = 64


class FileLinter:
    def __init__(
        self,
        config: Config,
        selected: set[str],
        *,
        cwd: Path,
        in_fault_path_file: Callable[[Path], bool],
        lint_set: set[str] | None = None,
        outline_lint_set: bool = True,
        outline_store: OutlineStore | None = None,
        outline_always: Iterable[str] = (),
        probe: FileProbe | None = None,
        memo: ScopeMemo | None = None,
    ) -> None:
        """`lint_set`: the absolute paths findings are reported for; other files a handler
        reaches are only outlined (see outline.py), and so are the lint set's own files
        unless `outline_lint_set` is False (--exhaustive parses them whole). None: every
        file is parsed whole. `outline_store`: outline.OutlineStore, outlines made
        already (by the forked scan, by earlier runs). `outline_always`: files outlined
        even so (--exhaustive's files past its size limit). `probe`: the project's
        file-existence tests (project.FileProbe; one that records them for the cache).
        `memo`: the scope's answers of earlier runs (scope_memo.py), with a cache."""
        self.config = config
        self.selected = selected
        self.rules: list[type[Rule]] = [r for code, r in rules_for(config).items() if code in selected]
        # Files in the lint set are outlined too (only their fault-path functions parsed)
        # when every rule reports only in fault-path code and asks for no metadata
        # provider, and the file is not a `fault-paths` file (whole file in scope).
        outlinable = lint_set is not None and all(
            rule.FAULT_PATH_ONLY and not rule.get_inherited_dependencies() for rule in self.rules
        )
        self.segmented = outlinable and outline_lint_set
        outline_only = None
        #: the files findings are reported for (the engine adds the project's files to it
        #: for a run over the whole project, before anything is loaded)
        self.lint_set: set[str] | None = None
        if lint_set is not None:
            segmented = self.segmented
            always = set(outline_always) if outlinable else set()
            reported = self.lint_set = set(lint_set)

            def outline_only(path: Path) -> bool:
                name = os.fspath(path)
                if name not in reported:
                    return True
                return (segmented or name in always) and not in_fault_path_file(Path(path))

        self.project = Project(config.root, cwd, outline_only=outline_only, outline_store=outline_store, probe=probe)
        self.memo = memo
        self._loaded: set[Path] = set()
        self._in_fault_path_file = in_fault_path_file
        self.fault_paths = self._new_fault_paths()
        #: each fault-path function's findings, kept between lints (lint_file's `reuse`)
        self.unit_cache: UnitCache | None = None

    def _new_fault_paths(self) -> FaultPaths:
        """The one constructor of the fault-path scope, for files, stdin and the language
        server alike: every setting that shapes it (handlers, `fault-paths`, `vllm-api`)
        comes from the configuration here."""
        in_fault_path_file = self._in_fault_path_file
        previous = getattr(self, "fault_paths", None)  # reset_scope: keep its step-guard screens
        return FaultPaths(
            self.project,
            handler_matcher(self.config.handler_patterns()),
            lambda info: in_fault_path_file(info.path),
            self.config.vllm_api,
            self.config.fault_steps,
            self.config.vllm_source,
            step_guards=previous._step_guards if previous is not None else None,
            memo=self.memo,
        )

    def reset_scope(self) -> None:
        """Forget the handlers and scope found so far (the project's modules stay loaded):
        after a file changed, load() the roots again (workspace.py)."""
        self._loaded.clear()
        self.fault_paths = self._new_fault_paths()

    @property
    def files_parsed(self) -> int:
        return len(self.project.read_paths)

    def load(self, files: Iterable[Path]) -> list[str]:
        """Parse the files that may define handlers (or are fault-path files) and close the
        scope. A file whose analysis fails is reported (one line) and the others go on.
        Files loaded by an earlier call are skipped (scan.py's forked strategy loads the
        files given while its child process still scans the project for the others)."""
        errors = []
        for file in files:
            if file in self._loaded:
                continue
            self._loaded.add(file)
            try:
                info = self.project.module_at(file)
                if info is not None:
                    self.fault_paths.add_roots([info])
            except (Exception, RecursionError) as err:  # noqa: BLE001
                errors.append(f"{file}: internal error while indexing: {err.__class__.__name__}: {err}")
                if os.environ.get("FTLINT_DEBUG"):
                    import traceback

                    traceback.print_exc()
        return errors

    def lint_file(
        self, path: Path, display: str, *, must_parse: bool, reuse: str | None = None
    ) -> tuple[list[Finding], list[str]]:
        """The file's findings and internal errors. `reuse` (the language server's
        workspace.py): keep each fault-path function's findings in `unit_cache` and lint
        again only the functions whose key changed (unit_cache.py); `reuse` is the part of
        the key the caller knows (the other files' changes)."""
        progress.tick()
        key = Path(os.path.abspath(path))
        if must_parse:
            info = self.project.module_at(key)
            failure = self.project.failure_at(key)
            if failure is not None:
                lines = self.project.text_at(key)
                return self._suppress(
                    key, [failure_finding(display, failure, split_lines(lines) if lines else None)], lines
                ), []
        else:
            info = self.project.loaded_module(key)  # a helper reached from a handler elsewhere
        if info is None or not self.rules:
            return [], []
        if info not in self.fault_paths.whole_modules and not any(
            self.fault_paths.holds_fault_path(fn) for fn in info.functions
        ):
            return [], []
        if info.module is None:  # outlined: parse the fault-path functions (and learn if LibCST cannot)
            for fn in info.functions:
                if self.fault_paths.holds_fault_path(fn):
                    fn.parse()  # its outermost function
            if info.cst_failure is not None and must_parse:
                return self._suppress(
                    key, [failure_finding(display, info.cst_failure, split_lines(info.text))], info.text
                ), []
        context = FileContext(path=key, info=info, fault_paths=self.fault_paths)
        if reuse is not None and self._by_units(info):
            findings, ran, errors = self._lint_units(context, display, reuse)
        else:
            findings, ran, errors = self._lint_whole(context, display)
        if UNUSED_NOQA in self.selected and info.text is not None:
            findings.extend(self._unused_noqa(context, display, findings, ran))
        return self._suppress(key, findings, info.text), errors

    # -- internals -----------------------------------------------------------
    def _lint_whole(self, context: FileContext, display: str) -> tuple[list[Finding], set[str], list[str]]:
        """The rules over every fault-path function of the file at once."""
        reports, ran, errors = self._run_rules(context, display)
        trees = _Trees.of(context)
        positions = _ranges(context, trees, [report.node for _, report in reports])
        statements = _Statements.of(context, trees, [report for _, report in reports])
        findings = [
            _finding(context, display, rule, report, positions[id(report.node)], trees, statements)
            for rule, report in reports
        ]
        return findings, ran, errors

    def _by_units(self, info: ModuleInfo) -> bool:
        """Whether the file can be linted unit by unit: outlined, its fault-path functions
        parsed alone, and every rule looking only at fault-path functions."""
        return (
            info.module is None
            and info.outline is not None
            and info not in self.fault_paths.whole_modules
            and all(rule.FAULT_PATH_ONLY for rule in self.rules)
        )

    def _lint_units(self, context: FileContext, display: str, reuse: str) -> tuple[list[Finding], set[str], list[str]]:
        """The rules over each unit (outermost function holding fault-path code) alone,
        the findings of a unit whose key did not change taken from `unit_cache`."""
        from ftlint.index import outline
        from ftlint.lint.unit_cache import UnitCache, UnitKeys

        info, paths = context.info, self.fault_paths
        outlined = info.outline
        assert outlined is not None  # _by_units
        units = outline.units(outlined)
        roots: dict[Function, list[Function]] = {}
        for outer, inner in units.items():
            for fn in inner:
                if paths.holds_fault_path(fn) and not _held_above(fn, paths):
                    roots.setdefault(outer, []).append(fn)
        if self.unit_cache is None:
            self.unit_cache = UnitCache()
        cache = self.unit_cache
        generation = str(paths.interpreter.generation_of(next(iter(roots)))) if roots else ""
        unit_keys = UnitKeys(info, outlined, units, paths, f"{reuse}\x00{display}\x00{generation}")
        keys = unit_keys.keys(roots)
        lines = split_lines(info.text)
        single = len(outlined.trees()) == 1
        kept_before = cache.files.get(os.fspath(context.path), {})
        kept_now: dict[str, Kept] = {}
        findings: list[Finding] = []
        failed: set[str] = set()
        errors: list[str] = []
        for outer, unit_roots in roots.items():
            unit_key = keys[outer]
            start = outlined.span(outer)[0]
            kept = kept_now.get(unit_key) or kept_before.get(unit_key)
            if kept is None:
                cache.linted += 1
                paths.interpreter.walk_only = unit_keys.walks_for(outer)  # the walks that may reach it
                try:
                    kept, keep = self._lint_unit(context, display, unit_roots, lines, single, outlined.span(outer))
                finally:
                    paths.interpreter.walk_only = None
                if keep:
                    kept_now[unit_key] = kept
            else:
                cache.reused += 1
                kept_now[unit_key] = kept
            findings.extend(kept.at(start))
            failed |= kept.failed
            errors.extend(kept.errors)
        cache.files[os.fspath(context.path)] = kept_now
        return findings, {rule.CODE for rule in self.rules} - failed, errors

    def _lint_unit(
        self,
        context: FileContext,
        display: str,
        roots: list[Function],
        lines: list[str],
        single: bool,
        span: tuple[int, int],
    ) -> tuple[Kept, bool]:
        """One unit's findings (made where it starts now), and whether they may be kept."""
        from ftlint.lint.unit_cache import Kept, within

        own: dict[int, Segment] = {}
        for fn in roots:
            segment = fn.tree()
            if segment is not None:
                own.setdefault(id(segment), segment)
        alone = all(fn.tree() is not None for fn in roots)
        trees_of = sorted(own.values(), key=lambda segment: segment.line_offset) if alone else None
        unit = FileContext(path=context.path, info=context.info, fault_paths=context.fault_paths, _trees=trees_of)
        reports, ran, errors = self._run_rules(unit, display, [fn.node for fn in roots])
        trees = _Trees.of(unit, lines)
        positions = _ranges(unit, trees, [report.node for _, report in reports])
        if any(id(report.node) not in positions for _, report in reports):  # a node in another unit's tree
            unit._trees, alone = None, False
            trees = _Trees.of(unit, lines)
            positions = _ranges(unit, trees, [report.node for _, report in reports])
        statements = _Statements.of(unit, trees, [report for _, report in reports]) if single else _Statements()
        findings = [
            _finding(unit, display, rule, report, positions[id(report.node)], trees, statements)
            for rule, report in reports
        ]
        failed = {rule.CODE for rule in self.rules} - ran
        return Kept(span[0], findings, failed, errors), alone and within(findings, span)

    def _run_rules(
        self, context: FileContext, display: str, roots: list[cst.FunctionDef] | None = None
    ) -> tuple[list[tuple[Rule, Report]], set[str], list[str]]:
        """The rules' reports, the codes of the rules that ran without an internal error, the
        errors. `roots`: the function nodes to visit (default: every fault-path function)."""
        rules = [rule(context) for rule in self.rules]
        errors: list[str] = []
        try:
            self._visit(context, rules, roots)
        except Exception:  # noqa: BLE001 - find the failing rule, keep the others
            rules, errors = [], []
            for rule_class in self.rules:
                context = FileContext(
                    path=context.path, info=context.info, fault_paths=context.fault_paths, _trees=context._trees
                )
                rule = rule_class(context)
                try:
                    self._visit(context, [rule], roots)
                    rules.append(rule)
                except Exception as err:  # noqa: BLE001
                    errors.append(
                        f"{display}: internal error in {rule_class.CODE} ({rule_class.NAME}): "
                        f"{err.__class__.__name__}: {err}"
                    )
                    if os.environ.get("FTLINT_DEBUG"):
                        import traceback

                        traceback.print_exc()
        ran = {rule.CODE for rule in rules}
        return [(rule, report) for rule in rules for report in rule.reports], ran, errors

    def _visit(self, context: FileContext, rules: list[Rule], only: list[cst.FunctionDef] | None = None) -> None:
        """One batched visit (ScopeTracker first, then the rules) over the file's fault-path
        functions, outermost first; over the whole module for a `fault-paths` file or when
        a rule asks for it (FAULT_PATH_ONLY = False). Nothing outside fault-path code can
        be reported by the others, and visiting it would cost as much as parsing it."""
        tracker = ScopeTracker(context)
        visitors = [tracker, *rules]
        info = context.info
        roots: list[Any]  # a module or function nodes
        if only is not None:
            roots = list(only)
        elif info in self.fault_paths.whole_modules or not all(rule.FAULT_PATH_ONLY for rule in rules):
            roots = [info.module]
        else:
            roots = [fn.node for fn in info.functions if self.fault_paths.holds_fault_path(fn)]
        if info.module is None:  # outlined (no rule asks for metadata): visit the parsed functions
            for root in roots:
                if id(root) not in tracker.functions_seen:
                    cst.visit_batched(root, visitors)
            return
        # only the providers the selected rules declare (none of the built-in ones does)
        wrapper = MetadataWrapper(info.module, unsafe_skip_copy=True)
        with ExitStack() as stack:
            for visitor in visitors:
                stack.enter_context(visitor.resolve(wrapper))
            for root in roots:
                if id(root) not in tracker.functions_seen:  # not inside one visited already
                    cst.visit_batched(root, visitors)

    def _unused_noqa(self, context: FileContext, display: str, findings: list[Finding], ran: set[str]) -> list[Finding]:
        """FT100 (unused_noqa.py): the `# noqa` codes of this file that suppressed none of
        `findings`, on the lines the rules visited, for the rules that ran (`ran`) without error."""
        ignored = self.config.ignored_codes_for(context.path)
        checked = {code for code in ran if code not in ignored}  # `in` knows prefixes
        text = context.info.text
        assert text is not None
        return unused_noqa_findings(
            text,
            display,
            [f for f in findings if f.code not in ignored],
            checked_codes=checked,
            known_codes=set(rules_for(self.config)),
            checked_line=_visited_lines(context.info, self.fault_paths),
        )

    def _suppress(self, path: Path, findings: list[Finding], text: str | None) -> list[Finding]:
        if not findings:
            return findings
        ignored = self.config.ignored_codes_for(path)
        findings = [f for f in findings if f.code not in ignored and (f.code in self.selected)]
        if not findings or text is None:
            return findings
        noqa = parse_suppressions(text)
        return [f for f in findings if not noqa.suppresses(f.code, f.line)]


def _visited_lines(info: ModuleInfo, fault_paths: FaultPaths) -> Callable[[int], bool]:
    """Whether the rules looked at a line of the file: a `fault-paths` file's every line,
    else the lines whose innermost function is in the fault path (line ranges asked only
    of the fault-path functions and the functions nested in them)."""
    if info in fault_paths.whole_modules:
        return lambda line: True
    spans: list[tuple[int, int, bool]] = []
    for fn in info.functions:
        outer: Function | None = fn
        while outer is not None and outer not in fault_paths.in_scope:
            outer = outer.parent
        if outer is None:
            continue
        try:
            where = fn.line_range()
        except KeyError:  # pragma: no cover - an outline without this function's span
            where = None
        if where is not None:
            spans.append((where[0], where[1], fn in fault_paths.in_scope))

    def visited(line: int) -> bool:
        holding = [s for s in spans if s[0] <= line <= s[1]]
        if not holding:
            return False
        return max(holding, key=lambda s: (s[0], -s[1]))[2]  # the innermost function

    return visited


@dataclass
class _Trees:
    """The parsed trees of the file being linted (context.trees(), asked once), where each
    tree's module sits in that list, and the file's lines (split once)."""

    trees: list[Segment]
    index: dict[int, int]  # id(tree's module) -> its place in `trees`
    lines: list[str]

    @classmethod
    def of(cls, context: FileContext, lines: list[str] | None = None) -> _Trees:
        trees = context.trees()
        if lines is None:
            lines = split_lines(context.info.text)
        return cls(trees, {id(tree.module): n for n, tree in enumerate(trees)}, lines)

    def holding(self, context: FileContext, nodes: Sequence[cst.CSTNode]) -> list[tuple[Segment, list[cst.CSTNode]]]:
        """The trees that hold `nodes`, each with its nodes (in file order). One tree: all of
        them; else each node's tree is the root its parents lead to (linear in the trees,
        where trying each tree for each node was quadratic on a file with many handlers)."""
        if len(self.trees) <= 1 or not nodes:
            return [(tree, list(nodes)) for tree in self.trees]
        groups: dict[int, list[cst.CSTNode]] = {}
        for node in nodes:
            root: cst.CSTNode = node
            while (parent := context.parent_of(root)) is not None:
                root = parent
            if id(root) in self.index:
                groups.setdefault(self.index[id(root)], []).append(node)
        return [(self.trees[n], groups[n]) for n in sorted(groups)]


def _ranges(context: FileContext, trees: _Trees, nodes: list[cst.CSTNode]) -> dict[int, CodeRange]:
    """id(node) -> CodeRange in the file (segments shifted to their lines): one codegen
    of each tree that holds a node asked for (issue 23: not every tree per node)."""
    found: dict[int, CodeRange] = {}
    for tree, mine in trees.holding(context, nodes):
        for key, code_range in ranges_of(tree.module, mine).items():
            found[key] = _shifted(code_range, tree.line_offset)
    return found


@dataclass
class _Statements:
    """The statements holding the fixes' nodes in a file parsed whole (id(statement) -> its
    start line) and the file's lines: a fix inside one statement is made from that
    statement alone (textedits.statement_edits). Empty when the file has no fix, or is
    outlined, or LibCST renders it otherwise: fixes are made the whole-module way."""

    starts: dict[int, int] = field(default_factory=dict)
    text: str = ""
    _lines: list[str] | None = None

    @classmethod
    def of(cls, context: FileContext, parsed: _Trees, reports: list[Report]) -> _Statements:
        """The start lines of the statements that hold the fixes' nodes, in one pass."""
        trees = parsed.trees
        if len(trees) != 1 or trees[0].line_offset or not any(report.fix for report in reports):
            return cls()
        if trees[0].text != trees[0].module.code:  # LibCST renders it otherwise: the whole-module way
            return cls()
        wanted = [
            s
            for report in reports
            for r in (report.fix or ())
            if (s := _statement_of(r.node, context.parent_of)) is not None
        ]
        starts = {key: code_range.start.line for key, code_range in ranges_of(trees[0].module, wanted).items()}
        return cls(starts, trees[0].text)

    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = split_lines(self.text, keepends=True)
        return self._lines


def _fix_edits(
    context: FileContext, fix: Sequence[Replacement], trees: _Trees, statements: _Statements
) -> tuple[Edit, ...]:
    fast = _statement_fix_edits(context, fix, statements)
    if fast is not None:
        return fast
    edits: list[Edit] = []
    for tree, nodes in trees.holding(context, [r.node for r in fix]):
        mine = [r for r in fix if any(r.node is node for node in nodes)]
        if mine:
            edits.extend(
                textedits.shift(e, tree.line_offset) for e in textedits.fix_edits(tree.text, tree.module, mine)
            )
    return tuple(edits)


def _statement_fix_edits(
    context: FileContext, fix: Sequence[Replacement], statements: _Statements
) -> tuple[Edit, ...] | None:
    """A fix inside one statement of a whole-module tree, from that statement alone
    (textedits.statement_edits; None: the whole-module way)."""
    if not statements.starts:
        return None
    groups: dict[int, tuple[cst.CSTNode, list[Replacement]]] = {}
    for replacement in fix:
        statement = _statement_of(replacement.node, context.parent_of)
        if statement is None:
            return None
        groups.setdefault(id(statement), (statement, []))[1].append(replacement)
    nested = {id(n) for n, _ in groups.values()}
    for statement, _ in groups.values():  # one statement inside another: the whole-module way
        parent = context.parent_of(statement)
        while parent is not None:
            if id(parent) in nested:
                return None
            parent = context.parent_of(parent)
    lines = statements.lines()
    edits: list[Edit] = []
    for statement, replacements in groups.values():
        start = statements.starts.get(id(statement))
        found = None if start is None else textedits.statement_edits(lines, statement, start, replacements)
        if found is None:
            return None
        edits.extend(found)
    return tuple(sorted(edits, key=lambda e: (e.line, e.column)))


def _finding(
    context: FileContext,
    display: str,
    rule: Rule,
    report: Report,
    position: CodeRange,
    trees: _Trees,
    statements: _Statements,
) -> Finding:
    """A rule's report as a Finding: `position`, the range of its node in the file (_ranges)."""
    lines = trees.lines
    start, end = position.start, position.end

    def line_text(number: int) -> str:
        return lines[number - 1] if 0 < number <= len(lines) else ""

    edits: tuple[Edit, ...] = ()
    if report.fix:
        edits = _fix_edits(context, report.fix, trees, statements)
    return Finding(
        path=display,
        line=start.line,
        column=start.column + 1,
        end_line=end.line,
        end_column=end.column + 1,
        code=rule.CODE,
        name=rule.NAME,
        message=report.message,
        severity=rule.SEVERITY,
        line_text=line_text(start.line),
        end_line_text=line_text(end.line),
        fix=edits,
        fix_title=report.fix_title,
        fix_applicability=("unsafe" if report.unsafe_fix else "safe") if edits else "",
    )


def _statement_of(node: cst.CSTNode, parent_of: Callable[[cst.CSTNode], cst.CSTNode | None]) -> cst.CSTNode | None:
    """The statement line or compound statement of a block that holds `node` (itself
    when it is one)."""
    current: cst.CSTNode | None = node
    while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        current = parent_of(current)
    return current


def _held_above(fn: Function, fault_paths: FaultPaths) -> bool:
    """Whether a function around `fn` holds fault-path code (then its visit covers `fn`)."""
    parent = fn.parent
    while parent is not None:
        if fault_paths.holds_fault_path(parent):
            return True
        parent = parent.parent
    return False


def _shifted(code_range: CodeRange, lines: int) -> CodeRange:
    if not lines:  # a whole module's tree: already the file's lines
        return code_range
    from libcst._position import CodePosition, CodeRange

    return CodeRange(
        CodePosition(code_range.start.line + lines, code_range.start.column),
        CodePosition(code_range.end.line + lines, code_range.end.column),
    )


# -- exhaustive screening ------------------------------------------------------
_screen_matcher: Callable[[Function], bool] | None = None
_screen_guards: StepGuards | None = None


def _screen_init(patterns: tuple[str, ...], steps: tuple[str, ...] = ()) -> None:
    global _screen_matcher, _screen_guards
    _screen_matcher = handler_matcher(patterns)
    _screen_guards = StepGuards(steps) if steps else None


def _screen_one(path: str) -> tuple[str, str]:
    """ "handler" when the file defines a fault handler or a step guard, "fail" when it cannot
    be parsed, else ""."""
    from ftlint.core.source import load_module
    from ftlint.index.project import index_module

    text, module = load_module(Path(path))
    if not isinstance(module, cst.Module) or text is None:
        return path, "fail"
    info = index_module(Path(path), text, module)
    matcher = _screen_matcher
    assert matcher is not None, "_screen_init runs first (the pool's initializer)"
    guards = _screen_guards
    if any(matcher(fn) or (guards is not None and guards.of(fn)) for fn in info.functions):
        return path, "handler"
    return path, ""


def _workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def screen_files(paths: list[str], patterns: tuple[str, ...], steps: tuple[str, ...] = ()) -> dict[str, str]:
    """Parse every file (the exhaustive check of the prefilter) and say which define a
    handler or fail to parse; in a process pool when there are enough files and CPUs.
    Each worker keeps one tree at a time, so memory stays flat."""
    workers = _workers()
    if workers < 2 or len(paths) < PARALLEL_THRESHOLD:
        _screen_init(patterns, steps)
        return dict(map(_ticked, map(_screen_one, paths)))
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    # biggest files first, so no worker is left with a large file at the end
    order = sorted(paths, key=_size, reverse=True)
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_screen_init, initargs=(patterns, steps)) as pool:
        return dict(map(_ticked, pool.map(_screen_one, order, chunksize=4)))


def _ticked(screened: tuple[str, str]) -> tuple[str, str]:
    progress.tick()  # one more file screened (ftlint.report.progress shows it)
    return screened


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
