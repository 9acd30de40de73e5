"""The rule base class (one LibCST visitor per rule, Fixit's shape), the facts a rule
may ask about the file it visits, and the examples each rule carries.

A rule declares CODE, NAME, MESSAGE, a ruff-style docstring (What it does / Why is
this bad? / Example / Use instead) and VALID/INVALID examples; ftlint.testing turns
every example of every rule into a pytest case (tests/test_rule_examples.py runs them).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import libcst as cst

from ftlint.core.finding import RuleDoc, Severity
from ftlint.syntax.textedits import Replacement

if TYPE_CHECKING:  # pragma: no cover
    from ftlint.analysis.faultpath import FaultPaths
    from ftlint.index.outline import Segment
    from ftlint.index.project import Function, ModuleInfo

__all__ = ["Case", "FileContext", "Invalid", "Replacement", "Report", "Rule", "Scope", "ScopeTracker", "Valid"]

#: what get_visitors maps each visit_/leave_ name to (LibCST's VisitorMethod)
VisitorMethod = Callable[[cst.CSTNode], None]


@dataclass(frozen=True)
class Scope:
    """Where a node sits: its innermost function, and whether fault-path rules apply there."""

    function: Function | None
    in_fault_path: bool
    is_handler: bool


class ScopeTracker(cst.BatchableCSTVisitor):
    """Keeps the innermost function (and its Scope) as the batched visit walks the file.

    It runs first in the same batch as the rules, so `Rule.scope(node)` costs no extra
    traversal of the file (a metadata provider would walk the whole tree once more,
    about as long as parsing it)."""

    def __init__(self, context: FileContext) -> None:
        super().__init__()
        self.context = context
        self.functions_seen: set[int] = set()  # id() of every FunctionDef visited

    def get_visitors(self) -> Mapping[str, VisitorMethod]:
        return _visitors_of(self)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions_seen.add(id(node))
        self.context._enclosing.append(self.context.function_scope(node))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.context._enclosing.pop()

    # An `except` branch catching a failed engine step (ftlint.analysis.steps) is a fault
    # path as a handler's body is, inside a function that is not one.
    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._enter_branch(node)

    def leave_ExceptHandler(self, original_node: cst.ExceptHandler) -> None:
        self._leave_branch(original_node)

    def visit_ExceptStarHandler(self, node: cst.ExceptStarHandler) -> None:
        self._enter_branch(node)

    def leave_ExceptStarHandler(self, original_node: cst.ExceptStarHandler) -> None:
        self._leave_branch(original_node)

    def _enter_branch(self, node: cst.CSTNode) -> None:
        if id(node) in self.context.fault_paths.guard_branches:
            outer = self.context._enclosing[-1]
            self.context._enclosing.append(Scope(function=outer.function, in_fault_path=True, is_handler=True))

    def _leave_branch(self, node: cst.CSTNode) -> None:
        if id(node) in self.context.fault_paths.guard_branches:
            self.context._enclosing.pop()


@dataclass
class FileContext:
    """What a rule may ask about the file it visits (read-only)."""

    path: Path
    info: ModuleInfo
    fault_paths: FaultPaths
    _parents: dict[int, cst.CSTNode] | None = field(default=None, repr=False)
    _enclosing: list[Scope] = field(default_factory=list, repr=False)  # Scope stack, kept by ScopeTracker
    _function_scopes: dict[int, Scope] = field(default_factory=dict, repr=False)
    #: the trees the rules visit, when not all the file's (one unit: lint_runner._lint_unit)
    _trees: list[Segment] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._enclosing.append(self.scope_for(None))

    def scope_for(self, fn: Function | None) -> Scope:
        return Scope(
            function=fn,
            in_fault_path=self.fault_paths.in_fault_path(fn, self.info),
            is_handler=fn is not None and fn in self.fault_paths.handler_set,
        )

    def function_scope(self, node: cst.FunctionDef) -> Scope:
        scope = self._function_scopes.get(id(node))
        if scope is None:
            scope = self._function_scopes[id(node)] = self.scope_for(self.info.function_for(node))
        return scope

    def scope_at(self, node: cst.CSTNode) -> Scope:
        """The Scope of the node being visited (a FunctionDef is its own function's)."""
        if isinstance(node, cst.FunctionDef):
            return self.function_scope(node)
        return self._enclosing[-1]

    def trees(self) -> list[Segment]:
        """The parsed trees of the file, placed in it (ModuleInfo.trees): the whole module,
        or the trees of its parsed fault-path functions when the file was outlined; a rule
        reads either the same way and need not know which."""
        return self._trees if self._trees is not None else self.info.trees()

    def parent_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The node's parent. Built on first use (rules ask only when they report or fix),
        so files without findings skip the extra pass ParentNodeProvider would cost."""
        if self._parents is None:
            collector = _ParentCollector()
            for tree in self.trees():
                tree.module.visit(collector)
            self._parents = collector.parents
        return self._parents.get(id(node))


class _ParentCollector(cst.CSTVisitor):
    def __init__(self) -> None:
        self.parents: dict[int, cst.CSTNode] = {}
        self._stack: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self._stack:
            self.parents[id(node)] = self._stack[-1]
        self._stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self._stack.pop()


@dataclass
class Report:
    node: cst.CSTNode
    message: str
    fix: tuple[Replacement, ...] = ()
    fix_title: str = ""
    unsafe_fix: bool = False  # applied only with --unsafe-fixes (it may change what the code does)


@dataclass(frozen=True)
class Case:
    """One example for a rule. `files` adds other project files (path -> code) so an
    example can put a helper in another module; `expect` lists the (line, column) of
    each finding (1-based, column optional; a leading path names another file of the
    example); `lint` names the files passed to ftlint (default: all of them, so helpers
    in other modules are linted too); `fixed` is the example's code after `--fix`;
    `message` is a text every finding of the example's rule must contain (a trailing
    string in an `expect` entry does the same for that one finding). ftlint.testing
    checks all of it."""

    code: str
    files: dict[str, str] = field(default_factory=dict)
    lint: tuple[str, ...] = ()
    config: str = ""  # extra lines for [tool.ftlint]
    expect: tuple[tuple[str | int, ...], ...] = ()
    fixed: str | None = None
    name: str = ""
    message: str = ""


def Valid(code: str, **kwargs: Any) -> Case:
    return Case(inspect.cleandoc(code) + "\n", **kwargs)


def Invalid(code: str, **kwargs: Any) -> Case:
    if "fixed" in kwargs and kwargs["fixed"] is not None:
        kwargs["fixed"] = inspect.cleandoc(kwargs["fixed"]) + "\n"
    return Case(inspect.cleandoc(code) + "\n", **kwargs)


_VISITOR_NAMES: dict[type, tuple[str, ...]] = {}


def _visitors_of(visitor: cst.BatchableCSTVisitor) -> dict[str, VisitorMethod]:
    """BatchableCSTVisitor.get_visitors, with the method names found once per class
    (LibCST runs inspect.getmembers on every instance, ~10 ms a rule per file). Only
    classes outside LibCST are read: LibCST's own visit_/leave_ methods (a thousand on
    every visitor class, through its typed base) are all no-ops."""
    cls = type(visitor)
    names = _VISITOR_NAMES.get(cls)
    if names is None:
        found: dict[str, None] = {}
        for klass in reversed(cls.__mro__):
            if klass.__module__.partition(".")[0] == "libcst":
                continue
            for name, _value in vars(klass).items():
                if name.startswith(("visit_", "leave_")):
                    method = getattr(cls, name)
                    if callable(method) and not getattr(method, "_is_no_op", False):
                        found[name] = None
                    else:
                        found.pop(name, None)
        names = _VISITOR_NAMES[cls] = tuple(sorted(found))
    return {name: getattr(visitor, name) for name in names}


class Rule(cst.BatchableCSTVisitor):
    CODE: ClassVar[str]
    NAME: ClassVar[str]
    MESSAGE: ClassVar[str]
    SEVERITY: ClassVar[Severity] = Severity.ERROR
    FIXABLE: ClassVar[bool] = False
    VALID: ClassVar[Sequence[Case]] = ()
    INVALID: ClassVar[Sequence[Case]] = ()
    #: The rule reports only inside fault-path code (every built-in rule does), so the
    #: engine visits only a file's fault-path functions (the whole file for a
    #: `fault-paths` file). A rule that must see the whole module sets this False: the
    #: files of the lint set are then parsed whole, and `context.trees()` is their module.
    FAULT_PATH_ONLY: ClassVar[bool] = True
    #: Off by default (as ruff's RUF100): enabled only by a selector more specific than
    #: `FT` (`FT100`, `FT1`) or by `ALL`, in `select`/`extend-select` or on the command
    #: line. The registry reads this line from the rule's source (write it literally).
    OPT_IN: ClassVar[bool] = False

    def __init__(self, context: FileContext) -> None:
        super().__init__()
        self.context = context
        self.reports: list[Report] = []

    def get_visitors(self) -> Mapping[str, VisitorMethod]:
        return _visitors_of(self)

    # -- helpers for rule code ----------------------------------------------
    def scope(self, node: cst.CSTNode) -> Scope:
        """Where `node` sits; `node` is the node being visited (ScopeTracker keeps it)."""
        return self.context.scope_at(node)

    def in_fault_path(self, node: cst.CSTNode) -> bool:
        return self.scope(node).in_fault_path

    def walked(self, node: cst.FunctionDef) -> bool:
        """Whether the path walk (ftlint.analysis) reports in this function: a fault-path
        function, one holding a step guard's branch (only that branch is walked), or one a
        handler's walk ran through a value (a dict of methods, a lambda, a decorator)."""
        fn = self.scope(node).function
        if self.in_fault_path(node):
            return True
        paths = self.context.fault_paths
        return fn is not None and (fn in paths.guarded or paths.interpreter.reached(fn))

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.context.parent_of(node)

    def report(
        self,
        node: cst.CSTNode,
        message: str | None = None,
        *,
        fix: Sequence[Replacement] = (),
        fix_title: str = "",
        unsafe_fix: bool = False,
    ) -> None:
        self.reports.append(Report(node, message or self.MESSAGE, tuple(fix), fix_title, unsafe_fix))

    # -- documentation -------------------------------------------------------
    @classmethod
    def docs(cls) -> RuleDoc:
        sections = _doc_sections(inspect.getdoc(cls) or "")
        return RuleDoc(
            code=cls.CODE,
            name=cls.NAME,
            summary=cls.MESSAGE,
            what_it_does=sections.get("What it does", ""),
            why_bad=sections.get("Why is this bad?", ""),
            example=sections.get("Example", ""),
            use_instead=sections.get("Use instead", ""),
            severity=cls.SEVERITY,
            url="",  # links come from the user's `docs-url` setting; ftlint invents no address
            extra={k: v for k, v in sections.items() if k not in _STANDARD_SECTIONS},
        )


_STANDARD_SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead")
_HEADING = re.compile(r"^(?:## (.+)|(Use instead):)\s*$")


def _doc_sections(doc: str) -> dict[str, str]:
    """Split a ruff-style docstring into its sections; code fences are unwrapped."""
    sections: dict[str, list[str]] = {}
    current = None
    for line in doc.splitlines():
        match = _HEADING.match(line)
        if match:
            current = (match.group(1) or match.group(2)).strip()
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    result = {}
    for title, lines in sections.items():
        text = "\n".join(lines).strip()
        fence = re.fullmatch(r"```(?:python|py)?\n(.*?)\n```", text, re.S)
        result[title] = fence.group(1) if fence else text
    return result
