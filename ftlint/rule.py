"""The rule base class (one LibCST visitor per rule, Fixit's shape), the facts a rule
may ask about the file it visits, and the examples each rule carries.

A rule declares CODE, NAME, MESSAGE, a ruff-style docstring (What it does / Why is
this bad? / Example / Use instead) and VALID/INVALID examples; the generic test in
tests/test_rule_examples.py runs every example of every rule.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Optional, Sequence, Union

import libcst as cst
from libcst.metadata import PositionProvider, VisitorMetadataProvider

from ftlint.finding import RuleDoc, Severity

if TYPE_CHECKING:  # pragma: no cover
    from ftlint.faultpath import Analysis, FaultPaths
    from ftlint.project import Function, ModuleInfo

DOCS_URL = "https://github.com/ftlint/ftlint/blob/main/docs/rules.md#{code}"


@dataclass(frozen=True)
class Scope:
    """Where a node sits: its innermost function, and whether fault-path rules apply there."""

    function: Optional["Function"]
    in_fault_path: bool
    is_handler: bool


class FaultScopeProvider(VisitorMetadataProvider[Scope]):
    """Maps every node to its Scope; computed once per file and shared by all rules."""

    # LibCST hands a provider its per-file input ("cache") only when gen_cache is set.
    gen_cache = staticmethod(lambda root_path, paths, timeout=None: {})

    def __init__(self, cache: "FileContext") -> None:
        super().__init__(cache)
        self.context = cache
        self._stack: list[Scope] = [self.context.scope_for(None)]

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.FunctionDef):
            self._stack.append(self.context.scope_for(self.context.info.function_for(node)))
        self.set_metadata(node, self._stack[-1])
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, cst.FunctionDef):
            self._stack.pop()


@dataclass
class FileContext:
    """What a rule may ask about the file it visits (read-only)."""

    path: Path
    info: "ModuleInfo"
    paths: "FaultPaths"
    options: dict = field(default_factory=dict)
    _parents: Optional[dict] = field(default=None, repr=False)

    def scope_for(self, fn: Optional["Function"]) -> Scope:
        return Scope(
            function=fn,
            in_fault_path=self.paths.in_fault_path(fn, self.info),
            is_handler=fn is not None and fn in self.paths.handlers,
        )

    @property
    def module(self) -> cst.Module:
        return self.info.module

    def parent_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The node's parent. Built on first use (rules ask only when they report or fix),
        so files without findings skip the extra pass ParentNodeProvider would cost."""
        if self._parents is None:
            collector = _ParentCollector()
            self.module.visit(collector)
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
class Replacement:
    """A fix as a CST edit: replace `node` with `new` (a node, a FlattenSentinel, or
    cst.RemovalSentinel.REMOVE); the engine turns it into text edits."""

    node: cst.CSTNode
    new: Union[cst.CSTNode, cst.FlattenSentinel, cst.RemovalSentinel]


@dataclass
class Report:
    node: cst.CSTNode
    message: str
    fix: tuple[Replacement, ...] = ()
    fix_title: str = ""


@dataclass(frozen=True)
class Case:
    """One example for a rule. `files` adds other project files (path -> code) so an
    example can put a helper in another module; `expect` lists the (line, column) of
    each finding (1-based, column optional; a leading path names another file of the
    example); `lint` names the files passed to ftlint (default: all of them, so helpers
    in other modules are linted too); `fixed` is the example's code after `--fix`."""

    code: str
    files: dict = field(default_factory=dict)
    lint: tuple = ()
    config: str = ""  # extra lines for [tool.ftlint]
    expect: tuple = ()
    fixed: Optional[str] = None
    name: str = ""


def Valid(code: str, **kwargs) -> Case:  # noqa: N802 - reads like Fixit's examples
    return Case(inspect.cleandoc(code) + "\n", **kwargs)


def Invalid(code: str, **kwargs) -> Case:  # noqa: N802
    if "fixed" in kwargs and kwargs["fixed"] is not None:
        kwargs["fixed"] = inspect.cleandoc(kwargs["fixed"]) + "\n"
    return Case(inspect.cleandoc(code) + "\n", **kwargs)


class Rule(cst.BatchableCSTVisitor):
    CODE: ClassVar[str]
    NAME: ClassVar[str]
    MESSAGE: ClassVar[str]
    SEVERITY: ClassVar[Severity] = Severity.ERROR
    FIXABLE: ClassVar[bool] = False
    VALID: ClassVar[Sequence[Case]] = ()
    INVALID: ClassVar[Sequence[Case]] = ()
    METADATA_DEPENDENCIES = (PositionProvider, FaultScopeProvider)

    def __init__(self, context: FileContext) -> None:
        super().__init__()
        self.context = context
        self.reports: list[Report] = []

    # -- helpers for rule code ----------------------------------------------
    def scope(self, node: cst.CSTNode) -> Scope:
        return self.get_metadata(FaultScopeProvider, node)

    def in_fault_path(self, node: cst.CSTNode) -> bool:
        return self.scope(node).in_fault_path

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        return self.context.parent_of(node)

    def path_analysis(self, node: cst.FunctionDef, *, handlers_only: bool = False) -> Optional["Analysis"]:
        """The path walk of a fault-path function (FT006-FT008 read it), or None when the
        function is not on a fault path (or not a handler, with handlers_only)."""
        scope = self.scope(node)
        if scope.function is None or not (scope.is_handler if handlers_only else scope.in_fault_path):
            return None
        return self.context.paths.analysis(scope.function)

    def report(
        self,
        node: cst.CSTNode,
        message: Optional[str] = None,
        *,
        fix: Sequence[Replacement] = (),
        fix_title: str = "",
    ) -> None:
        self.reports.append(Report(node, message or self.MESSAGE, tuple(fix), fix_title))

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
            url=DOCS_URL.format(code=cls.CODE.lower()),
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
