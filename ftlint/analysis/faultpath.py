"""Fault-path scoping and the structured path walk the ordering rules ask about.

*Scope* is which code fault-path rules report in: the fault handlers (entry points
matched by name or glob), every project function they reach through calls that
resolve statically, and whole files matched by `fault-paths`. *Effects* are what
a call does (evict, free, preempt), by vLLM's vocabulary or, for a project
function, by a summary of its body. The two are kept apart: an effect summary may
look inside a helper that is not itself reported on.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, cast

import libcst as cst

from ftlint.analysis.reach import StateScreen
from ftlint.analysis.steps import Branch, StepGuards
from ftlint.core import vocabulary as V
from ftlint.core.config import handler_name_matcher
from ftlint.index.project import ClassInfo, Function, ModuleInfo, Project
from ftlint.syntax import ir

if TYPE_CHECKING:
    from ftlint.analysis.interpreter import Interpreter
    from ftlint.analysis.memo import ScopeMemo

MAX_STATES = 64


class HandlerMatcher:
    """A predicate for entry points (the same pattern semantics as Config.is_fault_handler):
    a plain pattern matches the function name, a dotted one "Class.method" or the full
    qualified name. A function nested in another one matches by its own name too (the
    busy-loop wrapper's `run_with_fault_tolerance` is a closure)."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self._matches = handler_name_matcher(patterns)

    def __call__(self, fn: Function) -> bool:
        return self._matches(fn.class_qualname) or self._matches(fn.qualname)

    def inherited(self, cls: ClassInfo, name: str) -> bool:
        """Whether `cls.name`, a method `cls` inherits, is an entry point of `cls`."""
        return self._matches(f"{cls.name}.{name}") or self._matches(f"{cls.qualname}.{name}")


def handler_matcher(patterns: Iterable[str]) -> Callable[[Function], bool]:
    return HandlerMatcher(patterns)


@dataclass
class Summary:
    """What calling a project function does, as its callers see it."""

    may_evict: bool = False
    may_free: bool = False
    unguarded_free: ir.Effect | None = None  # a free in it that no eviction before it covers
    first_free: ir.Effect | None = None  # its first free (or call of a freeing helper)
    preempted_params: tuple[tuple[str, ir.Effect], ...] = ()  # preempted for resume, counters left set
    reset_params: frozenset[tuple[str, str]] = frozenset()  # (parameter, counter field) it resets


class Pending(NamedTuple):
    """A request preempted for resume whose counters are not reset yet."""

    effect: ir.Effect
    var: str
    missing: frozenset


class State(NamedTuple):
    evicted: bool
    freed: frozenset  # free effects that ran on this path
    pending: frozenset  # Pending


_NONE: frozenset = frozenset()


@dataclass
class Flow:
    normal: frozenset = _NONE
    brk: frozenset = _NONE
    cont: frozenset = _NONE
    ret: frozenset = _NONE
    exc: frozenset = _NONE

    def merge(self, other: Flow) -> Flow:
        return Flow(
            self.normal | other.normal,
            self.brk | other.brk,
            self.cont | other.cont,
            self.ret | other.ret,
            self.exc | other.exc,
        )


@dataclass
class Analysis:
    """Results of one path walk over a function, in source order."""

    frees_before_eviction: dict = field(default_factory=dict)  # free Effect -> eviction Effect after it
    unguarded_frees: list = field(default_factory=list)  # frees (or freeing calls) with no eviction before
    unreset_preempts: list = field(default_factory=list)  # (Effect, var) preempted for resume, not reset
    param_preempts: list = field(default_factory=list)  # (param, Effect) left to the caller to reset


class FaultPaths:
    def __init__(
        self,
        project: Project,
        is_handler: Callable[[Function], bool],
        in_fault_path_file: Callable[[ModuleInfo], bool] = lambda info: False,
        vllm_api: str = "auto",
        steps: Iterable[str] = (),
        vllm_source: str = "",
        step_guards: StepGuards | None = None,
        memo: ScopeMemo | None = None,
    ) -> None:
        self.project = project
        steps = tuple(steps)
        # `fault-steps`; `step_guards`: one kept from an earlier scope of the same steps (its
        # files' screens stay valid while their texts are the same); `memo`: answers of
        # earlier runs (memo.py: the engine's, with a cache)
        self._step_guards = (step_guards or StepGuards(steps, memo)) if steps else None
        #: (function, `except` branch) catching a failed engine step (steps.py): walked as a
        #: handler from the branch; the function is a fault path, what it calls is not
        self.step_guards: list[tuple[Function, Branch]] = []
        self.guarded: set[Function] = set()
        #: id() of those branches (ScopeTracker asks) -> the branch's IR, kept alive: `target`
        #: caches on the id() of its effects
        self.guard_branches: dict[int, ir.Seq] = {}
        #: whether a step guard may reach the state the analysis models (reach.py)
        self._state_screen = StateScreen(project, memo=memo)
        #: the step guards left out of the scope, and why (``--verbose``)
        self.scope_notes: list[str] = []
        self.vllm_api = vllm_api  # [tool.ftlint] vllm-api
        #: [tool.ftlint] vllm-source: the directory holding the `vllm` package, or None
        self.vllm_source: Path | None = Path(vllm_source) if vllm_source else None
        self._interpreter: Interpreter | None = None
        self.is_handler = is_handler
        self.in_fault_path_file = in_fault_path_file
        self.handlers: list[Function] = []  # in the order found
        self.handler_set: set[Function] = set()  # the same, asked `fn in` for every function
        # (inherited handler, the handler class that inherits it), where that class (or a
        # class between) overrides a method of the defining class: walked for the subclass,
        # whose `self.method` is the most-derived override.
        self.inherited_handlers: list[tuple[Function, ClassInfo]] = []
        self.in_scope: set[Function] = set()
        self._attribute_methods: dict[tuple[int, str, str], Function | None] = {}  # _method_of_attribute
        self.whole_modules: set[ModuleInfo] = set()
        self._summaries: dict[Function, Summary | None] = {}
        self._analyses: dict[Function, Analysis] = {}
        self._targets: dict[int, tuple[Function, bool] | None] = {}
        #: id of a function nested in a project decorator applied to a method -> that
        #: method's class (its wrapper's `self` is an instance of it)
        self._wrapped: dict[int, ClassInfo] = {}

    # -- scope ---------------------------------------------------------------
    def add_roots(self, modules: Iterable[ModuleInfo]) -> None:
        """Find entry points in these modules and extend the scope with what they reach."""
        modules = list(modules)  # read twice: handlers, then classes inheriting one
        frontier: list[Function] = []
        for info in modules:
            whole = self.in_fault_path_file(info)
            if whole:
                self.whole_modules.add(info)
            for fn in info.functions:
                if fn not in self.handler_set and self.is_handler(fn) and not self._handler_callback(fn):
                    self.handlers.append(fn)
                    self.handler_set.add(fn)
                    frontier.append(fn)
                elif whole:
                    frontier.append(fn)
                frontier.extend(self._add_step_guards(fn))
        pairs: list[tuple[Function, ClassInfo]] = []
        inherited = getattr(self.is_handler, "inherited", None)
        for info in modules:
            if inherited is None:
                break
            for cls in info.classes.values():
                for fn in self._inherited_handlers(cls, inherited):
                    if (fn, cls) not in self.inherited_handlers:
                        self.inherited_handlers.append((fn, cls))
                        pairs.append((fn, cls))
        seen: set[tuple[Function, ClassInfo]] = set()
        while frontier or pairs:
            if pairs:
                # a method run on an instance of `cls`: `self.name()` is cls's override
                fn, cls = pairs.pop()
                if (fn, cls) in seen:
                    continue
                seen.add((fn, cls))
                frontier.append(fn)
                for effect in ir.iter_effects(fn.ir):
                    if effect.kind == "call" and effect.callee is not None and effect.callee[0] == "self":
                        method = self.project.method(cls, effect.callee[1])
                        owner = method.class_info if method is not None else None
                        if method is not None and owner is not None and self.inherits(cls, owner):
                            pairs.append((method, cls))
                continue
            fn = frontier.pop()
            if fn in self.in_scope:
                continue
            self.in_scope.add(fn)
            frontier.extend(callee for callee in self._called(fn, fn.ir) if callee not in self.in_scope)

    def _listed(self, fn: Function, name: str) -> Iterator[Function]:
        """The functions a module-level `NAME = (f, g, h)` of `fn`'s module lists."""
        from ftlint.analysis.walk.shapes import module_name_list

        for listed in module_name_list(fn.module, name) or ():
            target = self._resolve(fn, ("name", listed))
            if target is not None:
                yield target[0]

    def _handler_callback(self, fn: Function) -> bool:
        """A nested function named like a handler, made by a factory that a handler class of
        its module calls (`bus.connect(make_aborter(engine))` in the class of `on_fault`): one
        listener among others that handler runs, in an order set at registration; the
        handler's own walk judges it, not a walk of it alone."""
        factory = fn.parent
        if factory is None or factory.parent is not None:
            return False
        for cls in fn.module.classes.values():
            methods = list(cls.methods.values())
            if not any(self.is_handler(m) for m in methods):
                continue
            for method in methods:
                for effect in ir.iter_effects(method.ir):
                    if effect.kind == "call" and effect.callee is not None and effect.callee[1] == factory.name:
                        target = self._resolve(method, effect.callee)
                        if target is not None and target[0] is factory:
                            return True
        return False

    def _called(self, fn: Function, seq: ir.Seq) -> Iterator[Function]:
        """The project functions the calls in `seq` (code of `fn`) may run: each resolved
        callee, and both alternatives of a conditional one (either may run)."""
        for effect in ir.iter_effects(seq):
            if effect.kind == "reference" and effect.callee is not None:
                referenced = self._resolve(fn, effect.callee)  # a method table's entry
                if referenced is not None:
                    yield referenced[0]
                elif effect.callee[0] == "name":  # `STAGES = (collect, evict)` handed to a call
                    yield from self._listed(fn, effect.callee[1])
                continue
            if effect.kind != "call":
                continue
            target = self.target(fn, effect)
            if target is not None:
                yield target[0]
            elif effect.callee is not None and effect.callee[0] == "self":
                yield from self.project.class_lambda_callees(fn, effect.callee[1])
            elif effect.callee is not None and effect.callee[0] == "dotted":
                method = self._method_of_local(fn, effect.callee[1])
                if method is not None:
                    yield method
            elif effect.callee is None:
                method = self._method_of_made(fn, effect.node)
                if method is not None:
                    yield method
            for ref in effect.alternatives:
                alternative = self._resolve(fn, ref)
                if alternative is not None:
                    yield alternative[0]
        if seq is fn.ir:
            yield from self._referenced(fn)
            yield from self._attribute_refs(fn)

    def _referenced(self, fn: Function) -> Iterator[Function]:
        """Project functions `fn` may run without calling them by name (besides a method
        table's entries, ir's "reference" effects): the calls in a lambda's body, and the
        wrapper of a project decorator around `fn` (with the decorator itself)."""
        known = fn.tree_facts.get(_VALUE_REFS)
        if known is None:
            node = fn.node
            if node is None:
                return
            refs = _ValueRefs()
            node.body.visit(refs)
            decorators = tuple(ir.callee_ref(decorator.decorator) for decorator in node.decorators)
            known = fn.tree_facts[_VALUE_REFS] = (tuple(refs.found), decorators)
        in_lambdas, decorators = cast("tuple[_Refs, _Refs]", known)
        for index, ref in enumerate([*in_lambdas, *decorators]):
            target = self._resolve(fn, ref) if ref is not None else None
            if target is None:
                continue
            yield target[0]
            for nested in target[0].nested.values():
                if index >= len(in_lambdas) and fn.class_info is not None and fn.is_method:
                    self._wrapped[id(nested)] = fn.class_info
                yield nested

    def _method_of_local(self, fn: Function, dotted: str) -> Function | None:
        """`x.m()` where `fn` binds `x = Cls(...)` to an object of a project class, or
        `self.x.m()` where `__init__` does: `Cls.m`."""
        head, _, method = dotted.partition(".")
        if head == "self" and method.count(".") == 1 and fn.class_info is not None:
            return self._method_of_attribute(fn.class_info, *method.split("."))
        if not method or "." in method:
            return None
        made = fn.tree_facts.get(_MADE_LOCALS)
        if made is None:
            made = fn.tree_facts[_MADE_LOCALS] = _made_locals(fn.node.body)
        cls_name = cast("dict[str, str]", made).get(head)
        cls = self.project.resolve_class(fn.module, cls_name) if cls_name else None
        return self.project.method(cls, method) if cls is not None else None

    def _method_of_made(self, fn: Function, node: cst.CSTNode) -> Function | None:
        """`Cls(...).m()`, an object made and used at once: `Cls.m`."""
        func = node.func if isinstance(node, cst.Call) else None
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call)):
            return None
        name = ir.dotted_name(func.value.func)
        if name is None or not name.rsplit(".", 1)[-1].lstrip("_")[:1].isupper():
            return None
        cls = self.project.resolve_class(fn.module, name)
        return self.project.method(cls, func.attr.value) if cls is not None else None

    def _method_of_attribute(self, cls: ClassInfo, attr: str, method: str) -> Function | None:
        key = (id(cls), attr, method)
        if key not in self._attribute_methods:
            self._attribute_methods[key] = self._attribute_method(cls, attr, method)
        return self._attribute_methods[key]

    def _attribute_method(self, cls: ClassInfo, attr: str, method: str) -> Function | None:
        from ftlint.analysis.walk.shapes import init_assignment, written_once

        if not written_once(cls.module, attr, constructed=True):
            return None  # (read from the module's text: no base class is resolved for most attributes)
        found = init_assignment(self.project.class_chain(cls), attr)
        value = found[1] if found is not None else None
        made = ir.dotted_name(value.func) if isinstance(value, cst.Call) else None
        owner = self.project.resolve_class(found[0].module, made) if found is not None and made else None
        return self.project.method(owner, method) if owner is not None else None

    def _attribute_refs(self, fn: Function) -> Iterator[Function]:
        """The project functions named in the value `__init__` gives an attribute `fn` reads
        (`self.steps = [self._evict, self._abort]` read by `for step in self.steps: step()`):
        the walk calls them through it (walk.shapes.init_assignment)."""
        cls = fn.class_info
        if cls is None or not fn.is_method:
            return
        read = fn.tree_facts.get(_SELF_ATTRS)
        if read is None:  # read off its text (the module's when it was parsed whole): no tree is visited
            segment = fn.tree()
            text = segment.text if segment is not None else fn.module.text
            read = fn.tree_facts[_SELF_ATTRS] = tuple(sorted(set(_SELF_ATTRIBUTE.findall(text))))
        from ftlint.analysis.walk.shapes import init_assignment, written_once

        chain: list[ClassInfo] | None = None
        for attr in cast("tuple[str, ...]", read):
            if not written_once(cls.module, attr) or self.project.method(cls, attr) is not None:
                continue
            chain = chain if chain is not None else self.project.class_chain(cls)
            found = init_assignment(chain, attr)
            if found is None:
                continue
            init, value = found
            finder = _ValueNames()
            value.visit(finder)
            for ref in finder.refs:
                target = self._resolve(init, ref)
                if target is not None:
                    yield target[0]

    def _resolve(self, fn: Function, ref: tuple[str, str] | None) -> tuple[Function, bool] | None:
        """What a call in `fn` reaches; `self.m` in a decorator's wrapper around a method
        is that method's class's `m`."""
        target = self.project.resolve_call(fn, ref)
        if target is None and ref is not None and ref[0] == "self" and id(fn) in self._wrapped:
            method = self.project.method(self._wrapped[id(fn)], ref[1])
            target = (method, True) if method is not None else None
        return target

    def _add_step_guards(self, fn: Function) -> list[Function]:
        """Record `fn`'s step guards; the project functions their branches call (the
        scope reaches them as it reaches a handler's callees)."""
        if self._step_guards is None or fn in self.guarded or fn in self.handler_set:
            return []
        if not self._step_guards.may_guard(fn):
            return []
        if not self._state_screen.guard_may_reach_state(fn):
            self.scope_notes.append(
                f"{fn.qualname}: its `except` around an engine step reaches no request state ftlint models "
                "(no primitive, counter or `super()` call there or in what it calls); left out of the scope"
            )
            return []
        branches = self._step_guards.of(fn)
        if not branches:
            return []
        self.guarded.add(fn)
        callees: list[Function] = []
        for branch in branches:
            self.step_guards.append((fn, branch))
            seq = self.guard_branches[id(branch)] = ir.build(branch.body)
            callees.extend(self._called(fn, seq))
        return callees

    def handler_class_names(self) -> list[str]:
        """The names of the classes that define a handler (their subclasses inherit it)."""
        return sorted({fn.class_info.name for fn in self.handlers if fn.class_info is not None and fn.is_method})

    def _inherited_handlers(self, cls: ClassInfo, matches: Callable[[ClassInfo, str], bool]) -> list[Function]:
        """The entry points `cls` inherits (defined in a base class) whose walk differs for
        `cls`: it or a class between overrides a method of the defining class."""
        chain = self.project.class_chain(cls)
        found = []
        for name in {n for c in chain[1:] for n in c.methods}:
            if not matches(cls, name):  # a name test first: resolving every inherited method cost most
                continue
            fn = self.project.method(cls, name)
            owner = fn.class_info if fn is not None else None
            if fn is None or owner is None or owner is cls or "<locals>" in fn.qualname:
                continue
            order = self.project.mro(cls)  # the classes before `owner` (mixins too) override it
            between = order[: order.index(owner)] if owner in order else []
            if any(self.project.method(owner, m) is not None for c in between for m in c.methods):
                found.append(fn)
        return sorted(found, key=lambda f: f.qualname)

    def inherits(self, cls: ClassInfo, ancestor: ClassInfo, depth: int = 0) -> bool:
        """Whether `ancestor` is `cls` or one of its (resolved) base classes."""
        if cls is ancestor:
            return True
        if depth > 16:
            return False
        for base in cls.bases:
            base_cls = self.project.resolve_class(cls.module, base)
            if base_cls is not None and base_cls is not cls and self.inherits(base_cls, ancestor, depth + 1):
                return True
        return False

    def in_fault_path(self, fn: Function | None, info: ModuleInfo | None = None) -> bool:
        if fn is not None and fn in self.in_scope:
            return True
        return info is not None and info in self.whole_modules

    def holds_fault_path(self, fn: Function) -> bool:
        """Whether `fn` holds fault-path code: it is in scope, or a step guard's branch is
        in it (the rules visit it; only the branch is a fault path)."""
        return fn in self.in_scope or fn in self.guarded

    def target(self, fn: Function, effect: ir.Effect) -> tuple[Function, bool] | None:
        key = id(effect)
        if key not in self._targets:
            self._targets[key] = self._resolve(fn, effect.callee) if effect.kind == "call" else None
        return self._targets[key]

    @property
    def notes(self) -> list[str]:
        """What the interpreter could not follow (``--verbose``); empty when it did not run."""
        return [*self.scope_notes, *(self._interpreter.notes if self._interpreter is not None else [])]

    @property
    def interpreter(self) -> Interpreter:
        """The shared abstract interpreter (ftlint.analysis) the path rules ask."""
        if self._interpreter is None:
            from ftlint.analysis import generation
            from ftlint.analysis.interpreter import Interpreter

            texts = (info.text for info in self.project.loaded() if "class Request" in info.text)
            found, _ = generation.detect(self.vllm_api, self.project.root, texts, self.project.probe.is_file)
            self._interpreter = Interpreter(self, found)
        return self._interpreter

    # -- effects -------------------------------------------------------------
    def summary(self, fn: Function) -> Summary | None:
        """What calling ``fn`` does. Callees are summarised first, depth first in call order,
        with an explicit stack (a helper chain through 300 modules must not recurse); a
        function still in progress reads as None: recursion is opaque."""
        if fn in self._summaries:
            return self._summaries[fn]
        self._summaries[fn] = None
        stack = [(fn, self._callees(fn))]
        while stack:
            current, callees = stack[-1]
            for callee in callees:
                if callee not in self._summaries:
                    self._summaries[callee] = None
                    stack.append((callee, self._callees(callee)))
                    break
            else:
                stack.pop()
                self._summaries[current] = self._summarize(current)
        return self._summaries[fn]

    def _callees(self, fn: Function) -> Iterator[Function]:
        for effect in ir.iter_effects(fn.ir):
            if effect.kind == "call":
                target = self.target(fn, effect)
                if target is not None:
                    yield target[0]

    def _summarize(self, fn: Function) -> Summary:
        """``fn``'s summary once its callees' are known (or in progress)."""
        may_evict = may_free = False
        first_free = None
        resets = set()
        params = set(fn.params)
        for effect in ir.iter_effects(fn.ir):
            if effect.kind == "evict":
                may_evict = True
            elif effect.kind in ("free", "preempt"):
                may_free = True
                first_free = first_free or effect
            elif effect.kind == "reset-counter" and effect.target in params:
                resets.add((effect.target, effect.name))
            elif effect.kind == "call":
                target = self.target(fn, effect)
                sub = self.summary(target[0]) if target else None
                if target and sub is not None:
                    may_evict |= sub.may_evict
                    may_free |= sub.may_free
                    if sub.may_free:
                        first_free = first_free or effect
                    for param, fieldname in sub.reset_params:
                        mapped = _argument_for(effect, target, param)
                        if mapped in params:
                            resets.add((mapped, fieldname))
        analysis = self.analysis(fn)
        summary = Summary(
            may_evict=may_evict,
            may_free=may_free,
            unguarded_free=analysis.unguarded_frees[0] if analysis.unguarded_frees else None,
            first_free=first_free,
            preempted_params=tuple(analysis.param_preempts),
            reset_params=frozenset(resets),
        )
        return summary

    def free_origin(self, fn: Function, effect: ir.Effect, *, unguarded: bool) -> ir.Effect:
        """The free a call of a helper stands for, followed through helpers while they are in
        the same file: a finding is reported at the free as written, and at the call only
        when the free lies in another file (which this file's report cannot point into)."""
        seen: set[int] = set()
        while effect.kind == "call" and id(effect) not in seen:
            seen.add(id(effect))
            target = self.target(fn, effect)
            summary = self.summary(target[0]) if target else None
            inner = None if summary is None else (summary.unguarded_free if unguarded else summary.first_free)
            if inner is None or not target or target[0].module is not fn.module:
                break
            fn, effect = target[0], inner
        return effect

    def analysis(self, fn: Function) -> Analysis:
        if fn not in self._analyses:
            self._analyses[fn] = _SummaryWalker(self, fn).run()
        return self._analyses[fn]


def _argument_for(effect: ir.Effect, target: tuple[Function, bool], param: str) -> str | None:
    """The caller's expression for a callee parameter."""
    fn, via_instance = target
    for name, code in effect.keywords:
        if name == param:
            return code
    params = fn.caller_params(via_instance)
    if param in params:
        index = params.index(param)
        if index < len(effect.args):
            return effect.args[index]
    return None


class _SummaryWalker:
    """Walks a function's IR over sets of abstract path states."""

    def __init__(self, fault_paths: FaultPaths, fn: Function) -> None:
        self.fault_paths = fault_paths
        self.fn = fn
        self.result = Analysis()
        self._unguarded: dict[int, ir.Effect] = {}
        self._unreset: dict[tuple[int, str], tuple[ir.Effect, str]] = {}

    def run(self) -> Analysis:
        start = frozenset({State(False, _NONE, _NONE)})
        flow = self.walk(self.fn.ir, start)
        params = set(self.fn.params)
        for state in flow.normal | flow.ret:
            for pending in state.pending:
                if pending.var in params and not self.fault_paths.is_handler(self.fn):
                    item = (pending.var, pending.effect)
                    if item not in self.result.param_preempts:
                        self.result.param_preempts.append(item)
                else:
                    self._unreset.setdefault((id(pending.effect), pending.var), (pending.effect, pending.var))
        self.result.unguarded_frees = list(self._unguarded.values())
        self.result.unreset_preempts = list(self._unreset.values())
        return self.result

    # -- transfer functions --------------------------------------------------
    def apply(self, effect: ir.Effect, state: State) -> State:
        kind = effect.kind
        if kind == "evict":
            return self._evict(effect, state)
        if kind in ("free", "preempt"):
            state = self._free(effect, state)
            if kind == "preempt" and not effect.drop_stale_output and effect.target:
                missing = frozenset(V.COUNTER_FIELDS)
                state = state._replace(pending=state.pending | {Pending(effect, effect.target, missing)})
            return state
        if kind == "reset-counter":
            return _reset(state, effect.target, effect.name)
        if kind == "call":
            target = self.fault_paths.target(self.fn, effect)
            summary = self.fault_paths.summary(target[0]) if target else None
            if not target or summary is None:
                return state
            if summary.unguarded_free is not None and not state.evicted:
                self._unguarded.setdefault(id(effect), effect)
            if summary.may_evict:
                state = self._evict(effect, state)
            if summary.may_free:
                state = state._replace(freed=state.freed | {effect})
            for param, _preempt in summary.preempted_params:
                var = _argument_for(effect, target, param)
                if var:
                    missing = frozenset(V.COUNTER_FIELDS)
                    state = state._replace(pending=state.pending | {Pending(effect, var, missing)})
            for param, fieldname in summary.reset_params:
                var = _argument_for(effect, target, param)
                if var:
                    state = _reset(state, var, fieldname)
        return state

    def _evict(self, effect: ir.Effect, state: State) -> State:
        for free in state.freed:
            self.result.frees_before_eviction.setdefault(free, effect)
        return state._replace(evicted=True)

    def _free(self, effect: ir.Effect, state: State) -> State:
        if not state.evicted:
            self._unguarded.setdefault(id(effect), effect)
        return state._replace(freed=state.freed | {effect})

    # -- structure -----------------------------------------------------------
    def walk(self, node: ir.Node, states: frozenset) -> Flow:
        if not states:
            return Flow()
        if isinstance(node, ir.Effect):
            return Flow(normal=_cap(frozenset(self.apply(node, s) for s in states)))
        if isinstance(node, ir.Seq):
            flow = Flow(normal=states)
            for item in node.items:
                step = self.walk(item, flow.normal)
                flow = Flow(
                    step.normal, flow.brk | step.brk, flow.cont | step.cont, flow.ret | step.ret, flow.exc | step.exc
                )
                if not flow.normal:
                    break
            return flow
        if isinstance(node, ir.Choice):
            flow = Flow()
            for branch in node.branches:
                flow = flow.merge(self.walk(branch, states))
            return flow
        if isinstance(node, ir.Loop):
            body = self.walk(node.body, states)
            after = self.walk(node.orelse, body.normal | body.cont)
            normal = after.normal | body.brk
            evicts, frees = self._may_evict_or_free(node.body)
            if evicts and not frees:
                # A loop that only evicts is a per-request eviction pass: requests it skips
                # (no in-flight tokens, say) have no dirty tail, so it covers them all.
                normal = frozenset(s._replace(evicted=True) for s in normal)
            return Flow(normal, after.brk, after.cont, body.ret | after.ret, body.exc | after.exc)
        if isinstance(node, ir.Try):
            return self._try(node, states)
        if isinstance(node, ir.Exit):
            return Flow(**{{"return": "ret", "raise": "exc", "break": "brk", "continue": "cont"}[node.kind]: states})
        return Flow(normal=states)

    def _may_evict_or_free(self, node: ir.Node) -> tuple[bool, bool]:
        evicts = frees = False
        for effect in ir.iter_effects(node):
            if effect.kind == "evict":
                evicts = True
            elif effect.kind in ("free", "preempt"):
                frees = True
            elif effect.kind == "call":
                target = self.fault_paths.target(self.fn, effect)
                summary = self.fault_paths.summary(target[0]) if target else None
                if summary is not None:
                    evicts |= summary.may_evict
                    frees |= summary.may_free
        return evicts, frees

    def _try(self, node: ir.Try, states: frozenset) -> Flow:
        # An exception may leave the body before any of its statements.
        raised = set(states)
        body = Flow(normal=states)
        for item in node.body.items:
            step = self.walk(item, body.normal)
            body = Flow(
                step.normal, body.brk | step.brk, body.cont | step.cont, body.ret | step.ret, body.exc | step.exc
            )
            raised |= body.normal
        raised |= body.exc
        flow = self.walk(node.orelse, body.normal)
        flow = Flow(flow.normal, body.brk | flow.brk, body.cont | flow.cont, body.ret | flow.ret, flow.exc)
        if node.handlers:
            for handler in node.handlers:
                flow = flow.merge(self.walk(handler, frozenset(raised)))
        else:
            flow = flow.merge(Flow(exc=frozenset(raised)))
        if not node.final.items:
            return flow
        final = Flow()
        for attr in ("normal", "brk", "cont", "ret", "exc"):
            out = self.walk(node.final, getattr(flow, attr))
            final = final.merge(Flow(**{attr: out.normal}))
            final = final.merge(Flow(ret=out.ret, exc=out.exc))
        return final


def _reset(state: State, var: str | None, fieldname: str) -> State:
    if not state.pending or var is None:
        return state
    pending = set()
    for item in state.pending:
        if item.var == var:
            missing = item.missing - {fieldname}
            if missing:
                pending.add(item._replace(missing=missing))
        else:
            pending.add(item)
    return state._replace(pending=frozenset(pending))


def _cap(states: frozenset) -> frozenset:
    if len(states) <= MAX_STATES:
        return states
    merged: dict[bool, State] = {}
    for s in states:
        prev = merged.get(s.evicted)
        merged[s.evicted] = s if prev is None else State(s.evicted, prev.freed | s.freed, prev.pending | s.pending)
    return frozenset(merged.values())


#: a function's callee refs in its lambdas and its decorators (_referenced), read once per
#: tree (Function.tree_facts): the language server's workspace builds the scope again after
#: every edit, from functions whose trees the edit left as they were
_VALUE_REFS = "faultpath.value_refs"
#: the `self.x` attributes a function reads (_attribute_refs), kept the same way
_SELF_ATTRS = "faultpath.self_attributes"
#: the locals a function binds to an object of a class it names (_method_of_local)
_MADE_LOCALS = "faultpath.made_locals"
_Refs = tuple[tuple[str, str] | None, ...]


_BLOCKS = (
    cst.BaseSuite,
    cst.BaseStatement,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Else,
    cst.Finally,
    cst.MatchCase,
)


def _made_locals(body: cst.BaseSuite) -> dict[str, str]:
    """The locals a function binds once, to `Cls(...)` of a CamelCase name: {local: "Cls"}
    (its statements only, nested definitions left out: no expression is visited)."""
    made: dict[str, str] = {}
    seen: set[str] = set()
    stack: list[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            continue
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                if not isinstance(small, cst.Assign):
                    continue
                called = ir.dotted_name(small.value.func) if isinstance(small.value, cst.Call) else None
                camel = called is not None and called.rsplit(".", 1)[-1].lstrip("_")[:1].isupper()
                for target in small.targets:
                    if not isinstance(target.target, cst.Name):
                        continue
                    name = target.target.value
                    if name in seen or not camel:
                        made.pop(name, None)  # bound twice, or to something else: not known
                    else:
                        made[name] = cast(str, called)
                    seen.add(name)
            continue
        stack.extend(child for child in node.children if isinstance(child, _BLOCKS))
    return made


class _ValueNames(cst.CSTVisitor):
    """The callee refs of the names and attributes of an expression (an attribute's value
    `__init__` sets: `[self._evict, self._abort]`)."""

    def __init__(self) -> None:
        self.refs: list[tuple[str, str]] = []

    def visit_Attribute(self, node: cst.Attribute) -> None:
        ref = ir.callee_ref(node)
        if ref is not None:
            self.refs.append(ref)

    def visit_Name(self, node: cst.Name) -> None:
        ref = ir.callee_ref(node)
        if ref is not None:
            self.refs.append(ref)


_SELF_ATTRIBUTE = re.compile(r"\bself\.(\w+)")


class _ValueRefs(cst.CSTVisitor):
    """Callee refs of the calls inside lambdas (nested defs are their own functions; a dict
    literal's values are ir's "reference" effects, see _called)."""

    def __init__(self) -> None:
        self.found: list = []
        self._lambdas = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._lambdas += 1

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._lambdas -= 1

    def visit_Call(self, node: cst.Call) -> None:
        if self._lambdas:
            self.found.append(ir.callee_ref(node.func))
