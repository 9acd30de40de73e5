"""Findings kept per fault-path function between lints of an edited file (issue 24: the
language server's edit costs what it changes, not what the file holds).

A *unit* is an outermost function of an outlined file that holds fault-path code (a
handler, a helper in scope, a step guard): the rules visit it alone, so its findings are
made from its own tree. They are kept under a key of everything they may depend on:

- the unit's text (its lines as written, decorators included: position-free) and the
  scope facts of its functions (in scope, handler, step guard, inherited handler);
- the text of every unit of the same file it may reach, and of every unit that may reach
  it (the handler walks that meet a helper decide its findings): by name (any identifier
  of its text naming a top-level function or class of the file, a method's class, its
  bases and subclasses in the file) and by the scope's own call resolution (through other
  files, back into this one);
- the file's frame (its lines outside every outermost function, blank lines left out:
  imports, module-level assignments, class headers), its layout (newline, indent: fixes
  are written in it) and the vLLM API generation its handlers are read for;
- `salt`: what the caller knows changed elsewhere (workspace.py: a count of the changes
  to the other files of the project), and the name the findings are reported under.

A unit whose key is unchanged gets its findings back shifted by the lines its start
moved; the others are linted again. Findings (or fix edits) outside the unit's lines are
never kept. The keys err on the side of linting again: a name that only looks like a
reference still links two units.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from hashlib import blake2b
from typing import TYPE_CHECKING

from ftlint.core.finding import Finding
from ftlint.syntax import textedits

if TYPE_CHECKING:
    from ftlint.analysis.faultpath import FaultPaths
    from ftlint.index.outline import Outline
    from ftlint.index.project import Function, ModuleInfo

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class Kept:
    """One unit's lint: its findings where the unit started on line `start`."""

    start: int
    findings: list[Finding]
    failed: set[str] = field(default_factory=set)  # codes of the rules that raised on it
    errors: list[str] = field(default_factory=list)

    def at(self, start: int) -> list[Finding]:
        """The findings for the unit now starting on line `start`."""
        delta = start - self.start
        if not delta:
            return list(self.findings)
        return [_shifted(f, delta) for f in self.findings]


class UnitCache:
    """Per file: unit key -> Kept (only the units of the file's last lint are kept)."""

    def __init__(self) -> None:
        self.files: dict[str, dict[str, Kept]] = {}
        self.linted = 0  # units linted (the rules run), over the cache's life: what tests count
        self.reused = 0  # units whose findings were reused


def _shifted(finding: Finding, delta: int) -> Finding:
    return replace(
        finding,
        line=finding.line + delta,
        end_line=finding.end_line + delta,
        fix=tuple(textedits.shift(edit, delta) for edit in finding.fix),
    )


def within(findings: Iterable[Finding], span: tuple[int, int]) -> bool:
    """Whether every finding and fix edit lies in the lines `span` (then it can be shifted)."""
    first, last = span
    for finding in findings:
        if not (first <= finding.line and finding.end_line <= last):
            return False
        if any(not (first <= edit.line and edit.end_line <= last) for edit in finding.fix):
            return False
    return True


def _digest(*parts: object) -> str:
    hasher = blake2b(digest_size=16)
    for part in parts:
        hasher.update(str(part).encode("utf-8", "surrogatepass"))
        hasher.update(b"\x00")
    return hasher.hexdigest()


class UnitKeys:
    """The keys of one lint of one outlined file (see the module's docstring)."""

    def __init__(
        self,
        info: ModuleInfo,
        outlined: Outline[Function],
        units: dict[Function, list[Function]],
        fault_paths: FaultPaths,
        salt: str,
    ) -> None:
        self.info = info
        self.outlined = outlined
        self.units = units
        self.fault_paths = fault_paths
        self.unit_of = {fn: outer for outer, inner in units.items() for fn in inner}
        self.by_name: dict[str, list[Function]] = {}
        for outer in units:
            self.by_name.setdefault(outer.qualname.split(".")[0], []).append(outer)
        self.subclasses: dict[str, list[str]] = {}
        for cls in info.classes.values():
            for base in cls.bases:
                for part in base.split("."):
                    self.subclasses.setdefault(part, []).append(cls.name)
        self._handlers = set(fault_paths.handlers)
        self._inherited = {fn for fn, _ in fault_paths.inherited_handlers}
        self._tokens: dict[Function, str] = {}
        self._edges: dict[Function, set[Function]] = {}
        self._outside: dict[Function, set[Function]] = {}  # a function of another file -> units of this file it reaches
        #: unit -> the units (holding fault-path code) that may reach it, itself included (keys())
        self.reached_by: dict[Function, set[Function]] = {}
        self.salt = _digest(salt, self._frame(), outlined.layout())

    def _frame(self) -> str:
        """The file's lines outside every outermost function (outline's frame), blank lines
        and the `pass` standing for each function left out: adding a function changes no key."""
        lines = self.outlined.frame().splitlines(keepends=True)
        return "".join(line for line in lines if line.strip() not in ("", "pass"))  # a function cut: `pass`

    def token(self, outer: Function) -> str:
        """The unit's own part of a key: its name, text and scope facts."""
        found = self._tokens.get(outer)
        if found is None:
            paths = self.fault_paths
            flags = [
                (
                    fn.qualname,
                    fn in paths.in_scope,
                    fn in self._handlers,
                    fn in paths.guarded,
                    fn in self._inherited,
                )
                for fn in self.units[outer]
            ]
            found = self._tokens[outer] = _digest(outer.qualname, self.outlined.text_of(outer), flags)
        return found

    def edges(self, outer: Function) -> set[Function]:
        """The units of the file `outer` may reach directly (by name or by the scope's calls)."""
        found = self._edges.get(outer)
        if found is not None:
            return found
        found = set()
        names = set(_NAME.findall(self.outlined.text_of(outer)))
        top = outer.qualname.split(".")[0]
        if outer.class_info is not None:  # its class, the class's bases and subclasses in the file
            names.add(top)
            cls = self.info.classes.get(top)
            for base in cls.bases if cls is not None else ():
                names.update(base.split("."))
            names.update(self.subclasses.get(top, ()))
        for name in names:
            found.update(self.by_name.get(name, ()))
        for fn in self.units[outer]:
            if fn.cst_node is not None:  # parsed: the scope resolved its calls
                for target in self.fault_paths._called(fn, fn.ir):
                    found |= self._reaches_here(target)
        found.discard(outer)
        self._edges[outer] = found
        return found

    def _reaches_here(self, target: Function) -> set[Function]:
        """The units of this file a call to `target` may run: its own, or through another file."""
        if target.module is self.info:
            unit = self.unit_of.get(target)
            return {unit} if unit is not None else set()
        known = self._outside.get(target)
        if known is not None:
            return known
        found: set[Function] = set()
        self._outside[target] = found  # a cycle reads what is known so far
        seen = {target}
        stack = [target]
        while stack:
            fn = stack.pop()
            if fn.cst_node is None:
                continue
            for callee in self.fault_paths._called(fn, fn.ir):
                if callee.module is self.info:
                    unit = self.unit_of.get(callee)
                    if unit is not None:
                        found.add(unit)
                elif callee not in seen:
                    seen.add(callee)
                    stack.append(callee)
        return found

    def reach(self, outer: Function) -> set[Function]:
        """`outer` and the units of the file it may reach."""
        seen = {outer}
        stack = [outer]
        while stack:
            for other in self.edges(stack.pop()):
                if other not in seen:
                    seen.add(other)
                    stack.append(other)
        return seen

    def keys(self, roots: Iterable[Function]) -> dict[Function, str]:
        """A key for each unit in `roots` (the units holding fault-path code)."""
        roots = list(roots)
        reaches = {outer: self.reach(outer) for outer in roots}
        reached_by = self.reached_by = {}
        for outer, reached in reaches.items():
            for other in reached:
                reached_by.setdefault(other, set()).add(outer)
        keys = {}
        for outer in roots:
            depends = set(reaches[outer])
            for entry in reached_by.get(outer, ()):
                depends |= reaches[entry]
            others = sorted(self.token(other) for other in depends if other is not outer)
            keys[outer] = _digest(self.salt, self.token(outer), others)
        return keys

    def walks_for(self, outer: Function) -> Callable[[Function], bool]:
        """Which entry walks (handlers, step guards) the interpreter needs for `outer`'s
        findings: those of other files, and those of the units that may reach it."""
        mine = {fn for entry in self.reached_by.get(outer, {outer}) for fn in self.units[entry]}
        info = self.info
        return lambda fn: fn.module is not info or fn in mine


__all__ = ["Kept", "UnitCache", "UnitKeys", "within"]
