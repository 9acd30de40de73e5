"""Whether a run's files hold any fault path, decided with Python's `ast` alone (issue 24).

FaultPaths (faultpath.py) closes the scope over LibCST trees: a handler, then each project
function a call in it resolves to (index/project.py), and so on; step guards' branches
add their callees. This walk makes the same resolutions from the same outlines, with the
calls read from Python's own parser instead, and more of them: every call anywhere in a
function (nested definitions, lambdas, decorators and defaults included, and both
alternatives of `(a if c else b)(...)`), and for step guards every `except` branch of
every function of the candidates. Its scope therefore holds FaultPaths' scope; when no
function of it lies in the run's files, nothing there is a fault path and the run has
nothing to report without LibCST ever being imported.

It decides nothing (None: lint as before, with LibCST) when it cannot be sure it holds
the scope: a file Python's parser rejects or whose outline it cannot match, `fault-paths`
files, a class inheriting a handler from a base class (its `self` calls resolve against
the subclass), or a lint file subclassing a handler's class (the engine checks that).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ftlint.core import vocabulary as V
from ftlint.core.config import handler_name_matcher
from ftlint.index.outline import ast_callee_ref
from ftlint.index.prefilter import StepCalls
from ftlint.index.project import ClassInfo, Function, ModuleInfo, Project
from ftlint.index.step_scan import Guards

if TYPE_CHECKING:
    from ftlint.analysis.memo import ScopeMemo

CallRef = tuple[str, str]
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


#: a function reaches vLLM's own methods through `super()` (read from vLLM's source or its
#: shipped summaries), which may change the state the analysis models
_SUPER = "super"


def _names(node: ast.AST) -> set[str]:
    """The names code uses: names, attributes, keywords, parameters, imported names, and
    each string constant whole (`getattr(s, "finish_requests")`); not comments or prose."""
    found: set[str] = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            found.add(inner.id)
        elif isinstance(inner, ast.Attribute):
            found.add(inner.attr)
        elif isinstance(inner, ast.keyword | ast.arg) and inner.arg:
            found.add(inner.arg)
        elif isinstance(inner, ast.alias):
            found.update(filter(None, (inner.name.rsplit(".", 1)[-1], inner.asname)))
        elif isinstance(inner, ast.Constant) and isinstance(inner.value, str) and len(inner.value) < 64:
            found.add(inner.value)
    return found


class Undecided(Exception):
    """The walk cannot be sure it holds FaultPaths' scope (see the module's doc)."""


@dataclass
class Reach:
    """The functions the walk reached (a superset of FaultPaths' scope), and the classes
    that define a handler (their subclasses inherit it)."""

    functions: set[Function] = field(default_factory=set)
    handler_classes: set[str] = field(default_factory=set)

    def files(self) -> set[str]:
        """The files (absolute paths) that hold a reached function."""
        return {str(fn.module.path) for fn in self.functions}


def reach(
    project: Project,
    candidates: Iterable[str],
    patterns: Iterable[str],
    steps: Iterable[str],
    memo: ScopeMemo | None = None,
) -> Reach | None:
    """The scope the candidates' handlers and step guards (`fault-steps`) reach (see the
    module's doc); None when the walk cannot be sure. `memo`: reach answers known already
    (the scan's, lint/scope_memo.py)."""
    steps = tuple(steps)
    calls_step = StepCalls(steps).calls_step if steps else None
    try:
        return _Walk(project, handler_name_matcher(patterns), calls_step, memo).run([Path(c) for c in candidates])
    except (Undecided, RecursionError, SyntaxError, ValueError):
        return None


class _Walk:
    def __init__(
        self,
        project: Project,
        matches: Callable[[str], bool],
        calls_step: Callable[[bytes], bool] | None,
        memo: ScopeMemo | None = None,
    ) -> None:
        self.project = project
        self.matches = matches
        self.calls_step = calls_step  # prefilter.StepCalls: `except` and a step call in these bytes
        self.nodes: dict[Function, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.screen = StateScreen(project, self, memo)

    def run(self, candidates: list[Path]) -> Reach:
        found = Reach()
        frontier: list[Function] = []
        for path in candidates:
            info = self._module(path)
            if info is None:
                continue
            for fn in info.functions:
                if self.matches(fn.class_qualname) or self.matches(fn.qualname):
                    frontier.append(fn)
                    if fn.class_info is not None and fn.is_method:
                        found.handler_classes.add(fn.class_info.name)
                callees = self._guard_callees(fn)
                if callees is not None:  # the guard is reached as a handler is
                    found.functions.add(fn)
                    frontier.extend(callees)
            for cls in info.classes.values():
                if self._inherits_handler(cls):
                    raise Undecided
        while frontier:
            fn = frontier.pop()
            if fn in found.functions:
                continue
            found.functions.add(fn)
            for ref in self._refs(self.node(fn)):
                target = self.project.resolve_call(fn, ref)
                if target is not None and target[0] not in found.functions:
                    frontier.append(target[0])
                elif target is None and ref[0] == "self" and fn.class_info is not None:
                    frontier.extend(self.project.class_lambda_callees(fn, ref[1]))
        return found

    def _module(self, path: Path) -> ModuleInfo | None:
        info = self.project.module_at(path)
        if self.project.unoutlined:
            raise Undecided  # the file was parsed whole with LibCST (or would be)
        return info

    def _guard_callees(self, fn: Function) -> list[Function] | None:
        """What the `except` branches in `fn` call (every branch of a function whose text has
        `except` and a step call: a superset of its step guards); None when `fn` holds no
        guard, or none that may reach the state the analysis models (StateScreen)."""
        outlined = fn.module.outline
        if self.calls_step is None:
            return None
        if outlined is not None and not self.calls_step(outlined.text_of(fn).encode("utf-8", "surrogatepass")):
            return None
        if not self.screen.guard_may_reach_state(fn):
            return None
        refs = [ref for handler in self.branches(fn) for ref in self._refs(handler)]
        targets = [self.project.resolve_call(fn, ref) for ref in refs]
        return [target[0] for target in targets if target is not None]

    def branches(self, fn: Function) -> list[ast.ExceptHandler]:
        """The `except` branches of every `try` in `fn`."""
        return [
            handler
            for inner in ast.walk(self.node(fn))
            if isinstance(inner, ast.Try | ast.TryStar)
            for handler in inner.handlers
        ]

    def _inherits_handler(self, cls: ClassInfo) -> bool:
        """Whether `cls` inherits an entry point from a (resolved) base class."""
        names = {name for c in self.project.class_chain(cls)[1:] for name in c.methods}
        return any(self.matches(f"{cls.name}.{n}") or self.matches(f"{cls.qualname}.{n}") for n in names)

    def referenced(self, fn: Function, nodes: Iterable[ast.AST] | None = None) -> Iterator[Function]:
        """The project functions `fn`'s code (or these `nodes` of it) calls or names as a
        value (a method put in a table, passed to `functools.partial`, kept in a variable):
        what a walk through it may run. Every name, `self.x` and dotted name in it."""
        for inner in (n for node in (nodes if nodes is not None else [self.node(fn)]) for n in ast.walk(node)):
            ref: CallRef | None = None
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Load):
                ref = ("name", inner.id)
            elif isinstance(inner, ast.Attribute) and isinstance(inner.ctx, ast.Load):
                ref = ast_callee_ref(inner)
            if ref is None:
                continue
            target = self.project.resolve_call(fn, ref)
            if target is not None:
                yield target[0]
            elif ref[0] == "self" and fn.class_info is not None:
                yield from self.project.class_lambda_callees(fn, ref[1])

    def _refs(self, node: ast.AST) -> Iterator[CallRef]:
        """How every call under `node` names its target (ir.callee_ref over `ast`)."""
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call):
                funcs = [inner.func.body, inner.func.orelse] if isinstance(inner.func, ast.IfExp) else [inner.func]
                for func in funcs:
                    ref = ast_callee_ref(func)
                    if ref is not None:
                        yield ref

    def node(self, fn: Function) -> ast.FunctionDef | ast.AsyncFunctionDef:
        """`fn`'s tree from Python's parser: its outermost function's lines parsed alone
        (inside `if 1:` when indented), each function in them matched by its first line."""
        if fn not in self.nodes:
            outlined = fn.module.outline
            if outlined is None:
                raise Undecided
            outer, inner = outlined.unit_of(fn)
            text = outlined.text_of(outer)
            wrapped = text[:1] in (" ", "\t", "\x0c")
            tree = ast.parse("if 1:\n" + text if wrapped else text)
            offset = outlined.span(outer)[0] - 1 - (1 if wrapped else 0)
            by_line = {outlined.span(f)[0]: f for f in inner}
            for node in ast.walk(tree):
                if isinstance(node, _DEFS):
                    first = min([node.lineno, *(d.lineno for d in node.decorator_list)]) + offset
                    match = by_line.get(first)
                    if match is not None and match.name == node.name:
                        self.nodes[match] = node
            if fn not in self.nodes:
                raise Undecided
        return self.nodes[fn]


def screened_guards(project: Project, path: Path, guards: Guards) -> dict[str, bool] | None:
    """StateScreen's verdict on each function of the module at `path` that holds one of
    these step guards (step_scan.guarded_functions), by qualified name (functions sharing
    one: True when any may reach state); the project reads outlines only (`ast_only`).
    None when a file it read could not be outlined: the linter, which parses such a file
    with LibCST, decides there. The project scan makes these while it reads (lint/scan.py)."""
    if not project.ast_only or project.unoutlined:
        return None
    info = project.module_at(path)
    if info is None:
        return None
    screen = StateScreen(project)
    verdicts: dict[str, bool] = {}
    for fn in info.functions:
        if guards.get(fn.qualname):
            verdicts[fn.qualname] = verdicts.get(fn.qualname, False) or screen.guard_may_reach_state(fn)
    return None if project.unoutlined else verdicts


class StateScreen:
    """Whether a step guard's `except` branches may reach the state the analysis models
    (vocabulary.STATE_NAMES): the function's own text, then every project function the
    branches call or name, and what those call or name, each with its module's frame. A guard
    whose reach names none of it has no effect the walk could follow (serving code's
    `processor.step()` in a `try` whose branch only builds an error reply): it is no fault
    path and never parsed with LibCST. Read with `ast` over the outlines; True when unsure."""

    def __init__(self, project: Project, walk: _Walk | None = None, memo: ScopeMemo | None = None) -> None:
        self.project = project
        self._walk = walk if walk is not None else _Walk(project, lambda name: False, None)
        self._frames: dict[ModuleInfo, bool] = {}
        self._memo = memo  # answers of earlier runs, with what each read (memo.py)

    def guard_may_reach_state(self, fn: Function) -> bool:
        memo, info = self._memo, fn.module
        if memo is None:
            return self._decide(fn)
        known = memo.reaches_state(info.path, info.text, fn.qualname)
        if known is not None:
            return known
        with self.project.recording() as reads:
            verdict = self._decide(fn)
        memo.keep_reaches_state(info.path, info.text, fn.qualname, verdict, reads, self.project.text_at)
        return verdict

    def _decide(self, fn: Function) -> bool:
        try:
            if self._names_state(fn):
                return True
            seen = {fn}
            frontier = [g for g in self._walk.referenced(fn, self._walk.branches(fn)) if g not in seen]
            while frontier:
                reached = frontier.pop()
                if reached in seen:
                    continue
                seen.add(reached)
                if self._names_state(reached):
                    return True
                frontier.extend(g for g in self._walk.referenced(reached) if g not in seen)
        except (Undecided, RecursionError, SyntaxError, ValueError):
            return True
        return False

    def _names_state(self, fn: Function) -> bool:
        """Whether `fn`'s code names the state (or calls `super()`), or its module's frame
        (constants and class bodies, which the walk reads) names the state."""
        names = _names(self._walk.node(fn))
        if _SUPER in names or not names.isdisjoint(V.STATE_NAMES):
            return True
        info = fn.module
        if info not in self._frames:
            outlined = info.outline
            if outlined is None:
                raise Undecided
            self._frames[info] = not _names(ast.parse(outlined.frame())).isdisjoint(V.STATE_NAMES)
        return self._frames[info]
