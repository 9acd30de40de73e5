"""The LibCST side of a run: load fault-path modules into the project, then visit
each fault-path file once with all selected rules batched, and turn their reports
into findings (positions, suppressions, fix edits)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import libcst as cst
from libcst.metadata import MetadataWrapper

from ftlint.analysis.faultpath import FaultPaths, handler_matcher
from ftlint.core import progress
from ftlint.core.config import Config
from ftlint.core.finding import Finding
from ftlint.core.source import failure_finding, split_lines
from ftlint.core.suppressions import parse_suppressions
from ftlint.index.project import FileProbe, Function, Project
from ftlint.lint.registry import all_rules
from ftlint.lint.rule import FileContext, Report, Rule, ScopeTracker
from ftlint.syntax import textedits
from ftlint.syntax.positions import ranges_of

if TYPE_CHECKING:  # pragma: no cover
    from libcst._position import CodeRange

    from ftlint.index.outline import OutlineStore, Segment
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
    ) -> None:
        """`lint_set`: the absolute paths findings are reported for; other files a handler
        reaches are only outlined (see outline.py), and so are the lint set's own files
        unless `outline_lint_set` is False (--exhaustive parses them whole). None: every
        file is parsed whole. `outline_store`: outline.OutlineStore, outlines made
        already (by the forked scan, by earlier runs). `outline_always`: files outlined
        even so (--exhaustive's files past its size limit). `probe`: the project's
        file-existence tests (project.FileProbe; one that records them for the cache)."""
        self.config = config
        self.selected = selected
        self.rules: list[type[Rule]] = [r for code, r in all_rules().items() if code in selected]
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
        self._loaded: set[Path] = set()
        self._in_fault_path_file = in_fault_path_file
        self._statement_starts: dict[int, int] = {}  # the file being linted's (see _statement_ranges)
        self._lines: list[str] | None = None
        self._trees: list[Segment] = []  # the file being linted's (context.trees(), once)
        self._text_lines: tuple[str, list[str]] | None = None
        self._tree_index: dict[int, int] = {}  # id(tree's module) -> its index in _trees
        self.fault_paths = self._new_fault_paths()

    def _new_fault_paths(self) -> FaultPaths:
        """The one constructor of the fault-path scope, for files, stdin and the language
        server alike: every setting that shapes it (handlers, `fault-paths`, `vllm-api`)
        comes from the configuration here."""
        in_fault_path_file = self._in_fault_path_file
        return FaultPaths(
            self.project,
            handler_matcher(self.config.handler_patterns()),
            lambda info: in_fault_path_file(info.path),
            self.config.vllm_api,
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

    def lint_file(self, path: Path, display: str, *, must_parse: bool) -> tuple[list[Finding], list[str]]:
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
            fn in self.fault_paths.in_scope for fn in info.functions
        ):
            return [], []
        if info.module is None:  # outlined: parse the fault-path functions (and learn if LibCST cannot)
            for fn in info.functions:
                if fn in self.fault_paths.in_scope:
                    fn.node  # noqa: B018 - parses its outermost function
            if info.cst_failure is not None and must_parse:
                return self._suppress(
                    key, [failure_finding(display, info.cst_failure, split_lines(info.text))], info.text
                ), []
        context = FileContext(path=key, info=info, fault_paths=self.fault_paths)
        reports, errors = self._run_rules(context, display)
        findings = [self._finding(context, display, rule, report) for rule, report in reports]
        return self._suppress(key, findings, info.text), errors

    # -- internals -----------------------------------------------------------
    def _run_rules(self, context: FileContext, display: str) -> tuple[list[tuple[Rule, Report]], list[str]]:
        rules = [rule(context) for rule in self.rules]
        errors: list[str] = []
        try:
            self._visit(context, rules)
        except Exception:  # noqa: BLE001 - find the failing rule, keep the others
            rules, errors = [], []
            for rule_class in self.rules:
                context = FileContext(path=context.path, info=context.info, fault_paths=context.fault_paths)
                rule = rule_class(context)
                try:
                    self._visit(context, [rule])
                    rules.append(rule)
                except Exception as err:  # noqa: BLE001
                    errors.append(
                        f"{display}: internal error in {rule_class.CODE} ({rule_class.NAME}): "
                        f"{err.__class__.__name__}: {err}"
                    )
                    if os.environ.get("FTLINT_DEBUG"):
                        import traceback

                        traceback.print_exc()
        self._positions = self._ranges(context, [report.node for rule in rules for report in rule.reports])
        self._statement_ranges(context, [report for rule in rules for report in rule.reports])
        return [(rule, report) for rule in rules for report in rule.reports], errors

    def _ranges(self, context: FileContext, nodes: list[cst.CSTNode]) -> dict[int, CodeRange]:
        """id(node) -> CodeRange in the file (segments shifted to their lines): one codegen
        of each tree that holds a node asked for (issue 23: not every tree per node)."""
        self._trees = context.trees()
        self._tree_index = {id(tree.module): n for n, tree in enumerate(self._trees)}
        found: dict[int, CodeRange] = {}
        for tree, mine in _by_tree(context, self._trees, nodes):
            for key, code_range in ranges_of(tree.module, mine).items():
                found[key] = _shifted(code_range, tree.line_offset)
        return found

    def _fix_edits(self, context: FileContext, fix: Sequence[Replacement]) -> tuple[Edit, ...]:
        fast = self._statement_fix_edits(context, fix)
        if fast is not None:
            return fast
        edits: list[Edit] = []
        for tree, nodes in _by_tree(context, self._trees, [r.node for r in fix], self._tree_index):
            mine = [r for r in fix if any(r.node is node for node in nodes)]
            if mine:
                edits.extend(
                    textedits.shift(e, tree.line_offset) for e in textedits.fix_edits(tree.text, tree.module, mine)
                )
        return tuple(edits)

    def _statement_fix_edits(self, context: FileContext, fix: Sequence[Replacement]) -> tuple[Edit, ...] | None:
        """A fix inside one statement of a whole-module tree, from that statement alone
        (textedits.statement_edits; None: the whole-module way)."""
        trees = self._trees
        if not self._statement_starts:
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
        if self._lines is None:
            self._lines = split_lines(trees[0].text, keepends=True)
        lines = self._lines
        edits: list[Edit] = []
        for statement, replacements in groups.values():
            start = self._statement_starts.get(id(statement))
            found = None if start is None else textedits.statement_edits(lines, statement, start, replacements)
            if found is None:
                return None
            edits.extend(found)
        return tuple(sorted(edits, key=lambda e: (e.line, e.column)))

    def _statement_ranges(self, context: FileContext, reports: list[Report]) -> None:
        """The start lines of the statements that hold the fixes' nodes, in one pass."""
        self._statement_starts = {}
        self._lines = None
        trees = self._trees
        if len(trees) != 1 or trees[0].line_offset or not any(report.fix for report in reports):
            return
        if trees[0].text != trees[0].module.code:  # LibCST renders it otherwise: the whole-module way
            return
        wanted = [
            s
            for report in reports
            for r in (report.fix or ())
            if (s := _statement_of(r.node, context.parent_of)) is not None
        ]
        for key, code_range in ranges_of(trees[0].module, wanted).items():
            self._statement_starts[key] = code_range.start.line

    def _visit(self, context: FileContext, rules: list[Rule]) -> None:
        """One batched visit (ScopeTracker first, then the rules) over the file's fault-path
        functions, outermost first; over the whole module for a `fault-paths` file or when
        a rule asks for it (FAULT_PATH_ONLY = False). Nothing outside fault-path code can
        be reported by the others, and visiting it would cost as much as parsing it."""
        tracker = ScopeTracker(context)
        visitors = [tracker, *rules]
        info = context.info
        if info in self.fault_paths.whole_modules or not all(rule.FAULT_PATH_ONLY for rule in rules):
            roots: list[Any] = [info.module]  # a module or function nodes
        else:
            roots = [fn.node for fn in info.functions if fn in self.fault_paths.in_scope]
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

    def _finding(self, context: FileContext, display: str, rule: Rule, report: Report) -> Finding:
        position = self._positions[id(report.node)]
        if self._text_lines is None or self._text_lines[0] is not context.info.text:  # once a file
            self._text_lines = (context.info.text, split_lines(context.info.text))
        lines = self._text_lines[1]
        start, end = position.start, position.end

        def line_text(number: int) -> str:
            return lines[number - 1] if 0 < number <= len(lines) else ""

        edits: tuple[Edit, ...] = ()
        if report.fix:
            edits = self._fix_edits(context, report.fix)
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

    def _suppress(self, path: Path, findings: list[Finding], text: str | None) -> list[Finding]:
        if not findings:
            return findings
        ignored = self.config.ignored_codes_for(path)
        findings = [f for f in findings if f.code not in ignored and (f.code in self.selected)]
        if not findings or text is None:
            return findings
        noqa = parse_suppressions(text)
        return [f for f in findings if not noqa.suppresses(f.code, f.line)]


def _statement_of(node: cst.CSTNode, parent_of: Callable[[cst.CSTNode], cst.CSTNode | None]) -> cst.CSTNode | None:
    """The statement line or compound statement of a block that holds `node` (itself
    when it is one)."""
    current: cst.CSTNode | None = node
    while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        current = parent_of(current)
    return current


def _by_tree(
    context: FileContext, trees: list[Segment], nodes: Sequence[cst.CSTNode], index: dict[int, int] | None = None
) -> list[tuple[Segment, list[cst.CSTNode]]]:
    """The trees that hold `nodes`, each with its nodes (in file order). One tree: all of
    them; else each node's tree is the root its parents lead to (linear in the trees,
    where trying each tree for each node was quadratic on a file with many handlers)."""
    if len(trees) <= 1 or not nodes:
        return [(tree, list(nodes)) for tree in trees]
    index = {id(tree.module): n for n, tree in enumerate(trees)} if index is None else index
    groups: dict[int, list[cst.CSTNode]] = {}
    for node in nodes:
        root: cst.CSTNode = node
        while (parent := context.parent_of(root)) is not None:
            root = parent
        if id(root) in index:
            groups.setdefault(index[id(root)], []).append(node)
    return [(trees[n], groups[n]) for n in sorted(groups)]


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


def _screen_init(patterns: tuple[str, ...]) -> None:
    global _screen_matcher
    _screen_matcher = handler_matcher(patterns)


def _screen_one(path: str) -> tuple[str, str]:
    """ "handler" when the file defines a fault handler, "fail" when it cannot be parsed, else ""."""
    from ftlint.core.source import load_module
    from ftlint.index.project import index_module

    text, module = load_module(Path(path))
    if not isinstance(module, cst.Module) or text is None:
        return path, "fail"
    info = index_module(Path(path), text, module)
    matcher = _screen_matcher
    assert matcher is not None, "_screen_init runs first (the pool's initializer)"
    return path, "handler" if any(matcher(fn) for fn in info.functions) else ""


def _workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def screen_files(paths: list[str], patterns: tuple[str, ...]) -> dict[str, str]:
    """Parse every file (the exhaustive check of the prefilter) and say which define a
    handler or fail to parse; in a process pool when there are enough files and CPUs.
    Each worker keeps one tree at a time, so memory stays flat."""
    workers = _workers()
    if workers < 2 or len(paths) < PARALLEL_THRESHOLD:
        _screen_init(patterns)
        return dict(map(_ticked, map(_screen_one, paths)))
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    # biggest files first, so no worker is left with a large file at the end
    order = sorted(paths, key=_size, reverse=True)
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_screen_init, initargs=(patterns,)) as pool:
        return dict(map(_ticked, pool.map(_screen_one, order, chunksize=4)))


def _ticked(screened: tuple[str, str]) -> tuple[str, str]:
    progress.tick()  # one more file screened (ftlint.report.progress shows it)
    return screened


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
