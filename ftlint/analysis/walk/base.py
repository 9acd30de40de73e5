"""What one entry function's walk holds: its frames, loops and facts, and how it records
a fact at the right place (a free in a helper of another file is reported at the call in
the entry's file that reaches it).

The walk is built in layers, each a class over the one below (effects -> expressions ->
calls -> control), and the walk of an entry function (interpreter.py) on top.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, cast

import libcst as cst

from ftlint.analysis import values as Val
from ftlint.analysis.facts import (
    CounterDecrementedAtZero,
    CountersLeftSet,
    PathFact,
    ReadAfterFree,
    StaleFrameDropped,
    TailGap,
    TailLeftCached,
)
from ftlint.analysis.walk.shapes import request_node
from ftlint.analysis.walk.state import Site, State
from ftlint.core import vocabulary as V
from ftlint.syntax import ir

if TYPE_CHECKING:
    from ftlint.analysis import vllm_summaries
    from ftlint.index.project import ClassInfo, Function, Project

MAX_CALL_DEPTH = 24
MAX_STEPS = 200_000  # expression evaluations per entry function
UNROLLED = 8  # items of a literal sequence of callables run one by one (a loop, a reduce)


class FlatSummary(Protocol):
    """What calling a function may do, as the fault-path scope summarised it."""

    may_evict: bool
    may_free: bool


class Scope(Protocol):
    """The fault-path scope, as the walk asks it (faultpath.FaultPaths)."""

    def summary(self, fn: Function) -> FlatSummary | None: ...

    def inherits(self, cls: ClassInfo, ancestor: ClassInfo, depth: int = 0) -> bool: ...

    def holds_fault_path(self, fn: Function) -> bool: ...

    def handler_class_names(self) -> list[str]: ...


class Host(Protocol):
    """What a walk asks of the run it is part of (interpreter.Interpreter)."""

    project: Project

    @property
    def fault_paths(self) -> Scope: ...

    #: the functions a handler's walk ran (helpers it inlined)
    reached_fns: set[Function]
    #: whether a project function of a name may evict, whether any may (kept by calls.py)
    evicting_names: dict[tuple[str, int], bool]

    def note(self, text: str) -> None: ...

    def installed_vllm_method(self, fn: Function, name: str) -> Function | None: ...

    def shipped_vllm_method(
        self, fn: Function, name: str, gen: V.Generation, self_class: ClassInfo | None = None
    ) -> list[vllm_summaries.PathEffects] | None: ...


@dataclass
class Decrement:
    """A decrement of a counter (`req.counter -= n`), as the paths through it found it."""

    site: Site
    #: what set the counter to 0 before it ("": a write of 0), on the paths where it was
    zeroed_by: set[str] = field(default_factory=set)
    #: reached with the counter known to be 0 on every path so far
    at_zero_always: bool = True


class WalkBase:
    """One entry function's walk: its frames and the facts it found."""

    def __init__(
        self,
        host: Host,
        entry: Function,
        gen: V.Generation,
        *,
        is_handler: bool,
        self_class: ClassInfo | None = None,
    ) -> None:
        self.interp = host
        self.entry = entry
        # The class `self` is an instance of in each frame (a handler class that inherits
        # `entry`: its overrides are the methods `self.x()` calls); reported in its module.
        self.selves: list[ClassInfo | None] = []
        self.self_class = self_class
        self.home = self_class.module if self_class is not None else entry.module
        self.is_handler = is_handler
        self.gen = gen
        self.found: list[PathFact] = []
        self.steps = 0
        self.stack: list[tuple[Function, Site | None]] = []  # (Function, Site of the call into it)
        self.loops: list[list[str]] = []  # request keys born in each enclosing loop
        self.loop_nodes: list[int] = []  # id() of each enclosing loop's node (its skips' marker)
        self.while_loops: set[int] = set()  # id() of the `while` loops among them
        self.popping_loops: set[int] = set()  # id() of those that remove from the running queue
        #: id() of the last statement of a loop's body: a `continue` there skips nothing
        self.loop_ends: set[int] = set()
        # The state of the expression being evaluated (read by index filters and block reads).
        self.current: State | None = None
        # Preempts that mark the request's stale output to be dropped (drop_stale_output=True,
        # reset_prefix_cache(reset_running_requests=True)), by id(node): a dropped frame when the
        # request still has stale tokens at the end of a path (see Effects.preempt).
        self.drops: set[int] = set()
        self.harmful_drops: set[int] = set()
        # While a lambda read from a tree of our own (a class attribute of an outlined module,
        # `shapes.module_tree`) runs: the call node its effects are located at (the linted file's
        # trees hold no node of that tree).
        self.relocate: cst.CSTNode | None = None
        self.relocate_depth = 0
        self.foreign: set[int] = set()  # id() of such lambdas
        #: the functions a call of which was met inside their own walk (Calls._recursive)
        self.recursed: set[Function] = set()
        #: how many calls the walk could not follow, and `raise` statements it met, so far (an
        #: exception may come out of either: ControlFlow._try)
        self.unfollowed = 0
        #: the paths a `raise` ended in a function the walk inlined, in the caller's names (a
        #: `try` around the call takes those raised in its body: ControlFlow._try)
        self.thrown: list[State] = []
        self.names: dict[tuple[object, ...], Val.Value] = {}  # names resolved per frame
        self.decrements: dict[int, Decrement] = {}  # by id() of the counter written
        #: `stack.callback(f, *args)` of an ExitStack, by id() of the call: (f, args, the call)
        self.exit_callbacks: dict[str, tuple[Val.Value, tuple[Val.Value, ...], cst.CSTNode]] = {}
        # id() of the loops during which the live running queue lost an item
        # (`scheduler.running.remove(req)`): a loop over that queue then skips requests
        self.running_mutated: set[int] = set()
        #: (id() of a class, attribute) whose value `__init__` is being walked for (Calls.built_in_init)
        self._building: set[tuple[int, str]] = set()
        self._built: dict[tuple[int, str], Val.Value] = {}

    @property
    def fn(self) -> Function:
        return self.stack[-1][0]

    def site(self, node: cst.CSTNode) -> Site:
        return Site(self.fn, self.relocated(node), self.stack[-1][1])

    def relocated(self, node: cst.CSTNode) -> cst.CSTNode:
        if self.relocating():
            return cast(cst.CSTNode, self.relocate)
        return node

    def relocating(self) -> bool:
        """Whether the current frame runs a lambda read from a tree of our own."""
        return self.relocate is not None and len(self.stack) == self.relocate_depth

    # -- facts -------------------------------------------------------------------------
    def in_entry_module(self, site: Site) -> Site:
        """The innermost site of the chain in the entry's file, in code the rules visit: a
        free in a helper of another file, or in a function of this one only a value led to
        (`TABLE[key](...)`, a method of an object picked at run time), is reported at the call
        that reaches it."""
        module = self.home
        current: Site | None = site
        while current is not None and (current.fn.module is not module or not self._visited(current.fn)):
            current = current.caller
        return current or site

    def placed(self, site: Site) -> Site:
        """Where a fact found at `site` is reported: there, when the rules visit its function;
        else at the call in scope that reaches it (in_entry_module)."""
        return site if self._visited(site.fn) else self.in_entry_module(site)

    def _visited(self, fn: Function) -> bool:
        """Whether the rules visit `fn`: it holds fault-path code, or a function it is nested
        in does (the static scope's, not the walk's: what the walk alone reached is not)."""
        paths = self.interp.fault_paths
        if paths.holds_fault_path(fn):
            return True
        prefix = fn.qualname.rsplit(".<locals>.", 1)[0] if ".<locals>." in fn.qualname else None
        return prefix is not None and any(
            outer.qualname == prefix and self._visited(outer) for outer in fn.module.functions
        )

    def add(self, fact: PathFact) -> None:
        if self.relocate is not None and fact.fn is self.fn and self.relocating():
            fact = dataclasses.replace(fact, node=self.relocate)
            if isinstance(fact, ReadAfterFree):
                fact = dataclasses.replace(fact, reader=self.relocate)
        self.found.append(fact)

    def report_uncovered(self, site: Site, gap: TailGap) -> None:
        where = self.in_entry_module(site)
        entry = self.entry.qualname if where.fn is not self.entry else None
        kind: Literal["free", "rewind", "requeue"] = site.rewind or "free"
        # (a shipped summary's vLLM method lies in no project module: another file)
        other_file = site.fn.module is None or where.fn.module.path != site.fn.module.path
        self.add(TailLeftCached(where.fn, where.node, gap, where is not site, entry, kind, other_file))

    def report_drop(self, site: Site) -> None:
        node = site.node
        every = isinstance(node, cst.Call) and ir.called_name(node.func) == V.RESET_PREFIX_CACHE
        where = self.placed(site)  # in a function only a value led to: at the call reaching it
        self.add(StaleFrameDropped(where.fn, where.node, every, (self.gen.counters or V.COUNTER_FIELDS)[0]))

    def report_decrements(self) -> None:
        for seen in self.decrements.values():
            if not seen.at_zero_always:
                continue
            site = seen.site
            where = self.in_entry_module(site)
            target = cast(cst.Attribute, site.node)
            self.add(
                CounterDecrementedAtZero(
                    where.fn, where.node, target.attr.value, ir.code_of(target), max(seen.zeroed_by), where is not site
                )
            )

    def report_counters(self, site: Site) -> None:
        where = self.in_entry_module(site)
        request = request_node(site.node)
        text = ir.code_of(request) if request is not None else "the request"
        self.add(
            CountersLeftSet(
                where.fn, where.node, request if where is site else None, text, self.gen.counters, where is not site
            )
        )
