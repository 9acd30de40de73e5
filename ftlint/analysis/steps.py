"""Step guards: the `except` branches that catch the failure of an engine step.

A `try` whose body calls an engine step (a name in `fault-steps`: vLLM's `step`,
`execute_model`, the busy loop a decorator wraps) handles that step's failure in its
`except` branches. Those branches are fault paths as a handler is, though the function
around them is not one: the fork's `fault_tolerant_wrapper` -> `run_with_fault_tolerance`
preempts every running request there. Only the branches are walked from a clean state
(nothing evicted, nothing freed); the rest of the function is not a fault path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

import libcst as cst

from ftlint.core.config import handler_name_matcher
from ftlint.index import outline, step_scan
from ftlint.index.prefilter import StepCalls
from ftlint.index.step_scan import NOT_FAILURES, Guards
from ftlint.syntax import ir

if TYPE_CHECKING:
    from ftlint.analysis.memo import ScopeMemo
    from ftlint.index.project import Function, ModuleInfo

Branch = cst.ExceptHandler | cst.ExceptStarHandler


class StepGuards:
    """Finds the step guards of a function: `steps` are globs on the called name."""

    def __init__(self, steps: Iterable[str], memo: ScopeMemo | None = None) -> None:
        steps = tuple(steps)
        self._matches: Callable[[str], bool] = handler_name_matcher(steps)
        self._bytes = StepCalls(steps)
        self._memo = memo  # answers of earlier runs (memo.py)
        #: a module's path -> (the text screened, its guards by function (step_scan.py), or
        #: None when `ast` could not read it): by text, not by ModuleInfo, so a scope built
        #: again after an edit (the language server) screens only the files that changed
        self._screened: dict[object, tuple[str, Guards | None]] = {}

    def may_guard(self, fn: Function) -> bool:
        """Whether `fn` may hold a step guard, from the module's screen alone (no LibCST)."""
        guards = self._screen(fn.module)
        return guards is None or bool(guards.get(fn.qualname))

    def of(self, fn: Function) -> list[Branch]:
        """The `except` branches of `fn` (not of functions nested in it) that catch the
        failure of a step called in their `try` body. The module is screened first (the
        bytes test, then `ast`: index/step_scan.py), which names the function's guards by
        place; LibCST parses the functions that hold one and walks statements only."""
        guards = self._screen(fn.module)
        if guards is not None:
            places = guards.get(fn.qualname)
            if not places:
                return []
            if len(places) == 1:  # else several functions share the name: walk this one
                tries = list(_try_statements(_statements(fn.node.body)))
                return [
                    tries[ordinal].handlers[i]
                    for ordinal, catching in places[0]
                    if ordinal < len(tries)
                    for i in catching
                    if i < len(tries[ordinal].handlers)
                ]
        finder = _BranchFinder(self._matches)
        fn.node.body.visit(finder)
        return finder.branches

    def _screen(self, module: ModuleInfo) -> Guards | None:
        known = self._screened.get(module.path)
        if known is None or known[0] != module.text:
            guards = self._guards(module.text, module.text.encode("utf-8", "surrogatepass"))
            known = self._screened[module.path] = (module.text, guards)
        return known[1]

    def _guards(self, text: str, data: bytes) -> Guards | None:
        """step_scan.guarded_functions of a module: found by the prefilter in this run, found
        by an earlier run (the memo), none when its `try` statements read alone show it
        (StepCalls.cleared), else read now; kept in the memo."""
        steps = self._bytes.steps
        seen, guards = step_scan.known(data, steps)
        if not seen and self._memo is not None:  # the prefilter did not read them: a cache
            seen, guards = self._memo.guards(text, steps)
            if seen:
                return guards
        if not seen:  # nor an earlier run (another encoding, a BOM; an edited buffer)
            # the outliner's tree of the text, when it kept one, is read whole: no windows first
            whole = outline.parsed_tree(text) is not None or not self._bytes.cleared(data)
            guards = step_scan.guarded_functions(text, self._matches) if whole else {}
        if self._memo is not None:
            self._memo.keep_guards(text, steps, guards)
        return guards


def _statements(suite: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    return suite.body if isinstance(suite, cst.IndentedBlock) else ()


def _try_statements(statements: Sequence[cst.BaseStatement]) -> Iterator[cst.Try | cst.TryStar]:
    """step_scan.try_statements on the LibCST tree: the `try` statements in source order,
    not inside nested functions or classes."""
    for statement in statements:
        if isinstance(statement, cst.FunctionDef | cst.ClassDef):
            continue
        if isinstance(statement, cst.Try | cst.TryStar):
            yield statement
        for block in _blocks(statement):
            yield from _try_statements(block)


def _blocks(statement: cst.BaseStatement) -> Iterator[Sequence[cst.BaseStatement]]:
    if isinstance(statement, cst.Try | cst.TryStar):
        yield _statements(statement.body)
        for handler in statement.handlers:
            yield _statements(handler.body)
        if statement.orelse is not None:
            yield _statements(statement.orelse.body)
        if statement.finalbody is not None:
            yield _statements(statement.finalbody.body)
    elif isinstance(statement, cst.If):
        yield _statements(statement.body)
        if isinstance(statement.orelse, cst.If):
            yield (statement.orelse,)
        elif statement.orelse is not None:
            yield _statements(statement.orelse.body)
    elif isinstance(statement, cst.For | cst.While):
        yield _statements(statement.body)
        if statement.orelse is not None:
            yield _statements(statement.orelse.body)
    elif isinstance(statement, cst.With):
        yield _statements(statement.body)
    elif isinstance(statement, cst.Match):
        for case in statement.cases:
            yield _statements(case.body)


def catches_failure(branch: Branch) -> bool:
    """Whether the branch catches an engine step's failure: a bare `except`, or a type that
    is not only SystemExit, KeyboardInterrupt and the like."""
    kind = branch.type
    if kind is None:
        return True
    values = (
        [e.value if isinstance(e, cst.Element) else None for e in kind.elements]
        if isinstance(kind, cst.Tuple)
        else [kind]
    )
    for value in values:  # None: a starred element, unknown
        name = ir.called_name(value) if value is not None else None  # the last component of a dotted name
        if name is None or name not in NOT_FAILURES:
            return True
    return False


class _SameScope(cst.CSTVisitor):
    """Visits the code of one scope: not the functions, lambdas and classes defined in it
    (their bodies do not run there)."""

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


class _CallsStep(_SameScope):
    """Whether a statement calls a step."""

    def __init__(self, matches: Callable[[str], bool]) -> None:
        self.matches = matches
        self.found = False

    def visit_Call(self, node: cst.Call) -> bool:
        name = ir.called_name(node.func)
        if name is not None and self.matches(name):
            self.found = True
        return not self.found


class _BranchFinder(_SameScope):
    def __init__(self, matches: Callable[[str], bool]) -> None:
        self.matches = matches
        self.branches: list[Branch] = []

    def visit_Try(self, node: cst.Try) -> None:
        self._guard(node.body, node.handlers)

    def visit_TryStar(self, node: cst.TryStar) -> None:
        self._guard(node.body, node.handlers)

    def _guard(self, body: cst.BaseSuite, handlers: Iterable[Branch]) -> None:
        calls = _CallsStep(self.matches)
        body.visit(calls)
        if calls.found:
            self.branches.extend(branch for branch in handlers if catches_failure(branch))
