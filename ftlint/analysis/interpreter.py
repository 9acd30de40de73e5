"""The path walk: every path through a fault-path function, helpers inlined.

A *state* is one path's abstract store (variables -> values.py values) plus what
the path did to vLLM's model: which requests' dirty tails were evicted (and how
well), which requests were freed (and where), which preempted requests still hold
counters, which counters were zeroed before a preempt. Statements map sets of
states to sets of states (branches fork, joins keep them apart up to MAX_STATES);
calls of project helpers are interpreted in the caller's state, so a helper's
effect is per path. vLLM primitives act by their effect (vocabulary.EFFECTS,
per API generation).

Facts (facts.py: neutral, typed, naming no rule) are recorded as the walk meets them
and kept per function; the rules read them with `Interpreter.facts(fn, Kind)`. Where the walk cannot decide
(an unresolved callee, a recursion, a too deep helper chain) it does not report, and
records a note (`Interpreter.notes`).

The walk recurses only along nested statements and expressions and along the helper
chain, which is cut at MAX_CALL_DEPTH; `elif` chains, statement lists and loops are
iterated.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeVar, cast

import libcst as cst

from ftlint.analysis import generation, vllm_summaries
from ftlint.analysis import values as Val
from ftlint.analysis.facts import (
    BroadEviction,
    CounterDecrementedAtZero,
    CountersLeftSet,
    EvictionCalled,
    Extent,
    PathFact,
    PrefixCacheResetCalled,
    ReadAfterFree,
    StaleFrameDropped,
    TailGap,
    TailLeftCached,
)
from ftlint.core import vocabulary as V
from ftlint.syntax import ir

if TYPE_CHECKING:
    from collections.abc import Callable

    from ftlint.index.project import Function

F = TypeVar("F", bound=PathFact)

MAX_STATES = 32
#: a keyword of _split's result: an unknown `**mapping` was passed (any keyword may be in it)
UNKNOWN_KEYWORDS = "**"
MAX_CALL_DEPTH = 24
MAX_STEPS = 200_000  # expression evaluations per entry function

_COMPARE_OPS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)
_PASSTHROUGH = frozenset(
    {"list", "set", "tuple", "frozenset", "sorted", "reversed", "iter", "chain", "from_iterable", "filter"}
)
_BUILTINS = frozenset(
    {"setattr", "getattr", "len", "enumerate", "range", "partial", "next", "zip", "max", "min", "methodcaller", "vars"}
)
#: `copy.copy(request)`: another object, on which resets miss the request
_COPIES = frozenset({"copy.copy", "copy.deepcopy"})
_ADDING = frozenset(
    {"add", "update", "extend", "append", "insert", "appendleft", "__ior__", "union", "difference_update"}
)


@dataclass(frozen=True)
class _VllmMethod:
    """Where a shipped summary's effects happen: a method of vLLM's, in no project module."""

    qualname: str
    module: None = None


@dataclass(frozen=True, eq=False)
class Site:
    """Where an effect happened: the node, its function, and the call that led there."""

    fn: Function
    node: cst.CSTNode
    caller: Site | None = None
    #: not a free: "rewind" (`num_computed_tokens` set back in place) or "requeue" (put back
    #: in the waiting queue): the request keeps its blocks, hashes included
    rewind: Literal["", "rewind", "requeue"] = ""


class State:
    __slots__ = ("_key", "at_zero", "env", "evicted", "freed", "pending", "zeroed")

    def __init__(
        self, env, evicted=frozenset(), freed=frozenset(), pending=frozenset(), zeroed=frozenset(), at_zero=frozenset()
    ):
        self.env = env  # dict, never mutated once shared (copy-on-write through `bind`)
        self.evicted = evicted  # {(request key, "ok" | "late" | "first-group")}
        self.freed = freed  # {(request key, Site)}
        self.pending = pending  # {(request key, Site, missing counters)}
        self.zeroed = zeroed  # {(request key, counter)} zeroed before a preempt
        # {(request key, counter, by)}: counters known to be 0 now, written 0 (by "") or set
        # to 0 by the primitive named `by` (a preempt)
        self.at_zero = at_zero
        self._key = None

    def replace(self, **changes) -> State:
        new = State(self.env, self.evicted, self.freed, self.pending, self.zeroed, self.at_zero)
        for name, value in changes.items():
            setattr(new, name, value)
        return new

    def bind(self, name: str, value) -> State:
        env = dict(self.env)
        env[name] = value
        return self.replace(env=env)

    def key(self):
        if self._key is None:
            self._key = (
                tuple(sorted(self.env.items(), key=lambda kv: kv[0])),
                self.evicted,
                self.freed,
                self.pending,
                self.zeroed,
                self.at_zero,
            )
        return self._key

    def freed_keys(self) -> set:
        return {k for k, site in self.freed if not site.rewind}


def _dedupe(states):
    seen: dict = {}
    for s in states:
        try:
            seen.setdefault(s.key(), s)
        except TypeError:  # an unhashable value slipped into the store
            seen.setdefault(id(s), s)
    out = list(seen.values())
    return out if len(out) <= MAX_STATES else [_merge(out)]


def _merge(states) -> State:
    """One state standing for many (past MAX_STATES paths): evictions of any path
    count, frees and unreset counters of any path are kept."""
    first = states[0]
    env = dict(first.env)
    evicted, freed, pending, zeroed = set(first.evicted), set(first.freed), set(first.pending), set(first.zeroed)
    at_zero = set(first.at_zero)
    for s in states[1:]:
        at_zero &= s.at_zero  # known to be 0 only where every path knows it
        for name in set(env) | set(s.env):
            env[name] = Val.join(env.get(name), s.env.get(name))
        evicted |= s.evicted  # an eviction on any path counts: fewer uncovered frees
        zeroed &= s.zeroed
        freed |= s.freed  # a free on any path is still a free to check
        pending |= s.pending  # a counter left set on one path is left set there
    return State(env, frozenset(evicted), frozenset(freed), frozenset(pending), frozenset(zeroed), frozenset(at_zero))


@dataclass
class Flow:
    normal: list = field(default_factory=list)
    brk: list = field(default_factory=list)
    cont: list = field(default_factory=list)
    ret: list = field(default_factory=list)
    exc: list = field(default_factory=list)

    def add(self, other: Flow, normal: bool = True) -> None:
        if normal:
            self.normal += other.normal
        self.brk += other.brk
        self.cont += other.cont
        self.ret += other.ret
        self.exc += other.exc


class _Abandon(Exception):
    """The entry function is too costly to interpret: it gets no findings."""


class Interpreter:
    """The facts of every path through the fault handlers of one run (one FaultPaths)."""

    def __init__(self, fault_paths, generation: V.Generation | None) -> None:
        self.fault_paths = fault_paths
        self.project = fault_paths.project
        self.fixed_generation = generation  # from the configuration or the project's Request class
        self._fallback: V.Generation | None = None
        self.notes: list[str] = []
        self._done: set = set()  # (Function, handler class or None) walked
        self._handlers_run: tuple[int, int, int] | None = None  # sizes of the handler sets last walked
        self._by_fn: dict = {}  # id(Function) -> {fact type: {id(node): PathFact}}
        self._drops: dict[int, bool] = {}  # id(preempt node) -> drops a frame on some handler path
        self._reached: set = set()  # Functions a handler walk ran (helpers it inlined)
        #: the entry functions to walk (None: all): the language server's lint of one unit of
        #: a file needs only the walks that may reach it (lint/unit_cache.py)
        self.walk_only: Callable[[Function], bool] | None = None

    # -- queries -------------------------------------------------------------
    def facts(self, fn, kind: type[F]) -> list[F]:
        """The facts of one kind located in `fn`, from every entry that reaches it."""
        self._run_handlers()
        if fn.module in self.fault_paths.whole_modules:
            self._run(fn)  # `fault-paths` code no handler may reach: walked on its own
        # Helpers are walked inside the handlers' walks, with the values they are given.
        return list(self._by_fn.get(id(fn), {}).get(kind, {}).values())

    def reached(self, fn) -> bool:
        """Whether a handler's walk ran `fn` (a helper it called, also through a value the
        scope's call graph does not follow: a dict of methods, a lambda, a decorator)."""
        self._run_handlers()
        return fn in self._reached

    def drop_verdict(self, node) -> bool | None:
        """For a preempt with drop_stale_output=True: True when some handler path reaches it
        with the request's num_in_flight_tokens not known to be 0 (stale tokens to drop),
        False when every handler walk that met it had it at 0, None when none met it."""
        self._run_handlers()
        return self._drops.get(id(node))

    def _run_handlers(self) -> None:
        """Walk every handler once; asked per function and node, so a second call with
        the same handlers returns at once (not a pass over every handler per query)."""
        paths = self.fault_paths
        sizes = (len(paths.handlers), len(paths.inherited_handlers), len(paths.step_guards))
        if sizes == self._handlers_run:
            return
        wanted = self.walk_only
        if wanted is None:
            self._handlers_run = sizes
        for handler in list(self.fault_paths.handlers):
            if wanted is None or wanted(handler):
                self._run(handler)
        for handler, cls in list(self.fault_paths.inherited_handlers):
            if wanted is None or wanted(handler):
                self._run(handler, cls)
        for fn, branch in list(self.fault_paths.step_guards):
            if wanted is None or wanted(fn):
                self._run(fn, branch=branch)

    def _run(self, fn, cls=None, branch=None) -> None:
        """Walk `fn`; `cls`: the handler class it is walked for when it inherits `fn`
        (`self.method` then resolves to that class's most-derived override); `branch`: an
        `except` branch of `fn` catching a failed engine step (steps.py), walked alone as a
        handler's body."""
        key = (fn, cls) if branch is None else (fn, id(branch))
        if key in self._done:
            return
        self._done.add(key)
        is_handler = fn in self.fault_paths.handlers or cls is not None or branch is not None
        walk = _Walk(self, fn, is_handler=is_handler, self_class=cls, branch=branch)
        try:
            walk.run()
        except (_Abandon, RecursionError):
            self.notes.append(f"{fn.qualname}: too many paths or too deep; not reported")
            return
        for fact in walk.found:
            per_kind = self._by_fn.setdefault(id(fact.fn), {}).setdefault(type(fact), {})
            per_kind.setdefault(id(fact.node), fact)
        if is_handler:
            for node_id in walk.drops:
                self._drops[node_id] = self._drops.get(node_id, False) or node_id in walk.harmful_drops

    def generation_of(self, fn) -> V.Generation:
        """The stale-output API a handler is written for (generation.py)."""
        if self.fixed_generation is not None:
            return self.fixed_generation
        for text in self._own_texts(fn.module):
            found = generation.from_usage(text)
            if found is not None:
                return found
        if self._fallback is None:
            self._fallback = generation.fallback(self.project.probe.is_file, self.fault_paths.vllm_source)[0]
        return self._fallback

    def installed_vllm_method(self, fn, name: str):
        """`super().name` where the base class is vLLM's own (`class H(EngineCoreSentinel)`
        importing it from vllm): the method from vLLM's source (read with the project's
        loader, never imported): the `vllm-source` tree when configured, else the installed
        vLLM's; or None (then vllm_summaries.py's shipped summary, see shipped_vllm_method)."""
        cls = fn.class_info
        if cls is None:
            return None
        root = self.fault_paths.vllm_source
        if root is None:
            request = generation.installed_vllm_request(self.project.probe.is_file)
            if request is None:
                return None
            root = request.parent.parent.parent
        for base in cls.bases:
            ref = fn.module.imports.get(base.split(".")[0])
            if ref is None or ref.level or ref.module.split(".")[0] != "vllm" or not ref.name:
                continue
            module_path = root.joinpath(*ref.module.split("."))
            for path in (module_path.with_suffix(".py"), module_path / "__init__.py"):
                info = self.project.module_at(path) if self.project.probe.is_file(path) else None
                base_cls = self.project.resolve_class(info, ref.name) if info is not None else None
                method = self.project.method(base_cls, name) if base_cls is not None else None
                if method is not None:
                    return method
        return None

    def shipped_vllm_method(self, fn, name: str, gen: V.Generation, self_class=None):
        """`super().name` into vLLM's own base class, from the summaries shipped for the
        handler's API generation (vllm_summaries.py): a list of path effects, None when
        there is no usable summary."""
        cls = fn.class_info
        data = vllm_summaries.for_generation(gen) if cls is not None else None
        if data is None:
            return None
        for base in cls.bases:
            ref = fn.module.imports.get(base.split(".")[0])
            if ref is None or ref.level or ref.module.split(".")[0] != "vllm" or not ref.name:
                continue
            found = vllm_summaries.lookup(data, ref.module, ref.name, name)
            if found is False:
                continue
            mine = set(cls.methods) | set(self_class.methods if self_class is not None else ())
            overridden = sorted(mine & vllm_summaries.calls_on_self(data, ref.module, ref.name, name) - {name})
            if overridden:  # vLLM's method may call them on `self`: its summary does not hold
                self.note(
                    f"{fn.qualname}: `super().{name}()`: ftlint's vLLM summary does not hold where "
                    f"{', '.join(overridden)} {'is' if len(overridden) == 1 else 'are'} overridden; set vllm-source to follow it"
                )
                return None
            return found
        return None

    def path_effects(self, fn) -> list[vllm_summaries.PathEffects] | None:
        """What each path through `fn` (a method of vLLM's own, walked as a helper called on
        `self`) leaves in the walk's state, for vllm_summaries.py; None when it depends on
        `fn`'s other arguments or marks stale output to be dropped (then not summarised)."""
        walk = _Walk(self, fn, is_handler=False)
        env = {p: None if p in ("self", "cls") and fn.is_method else Val.Param(p) for p in fn.params}
        start = State(env)
        walk.stack.append((fn, None))
        walk.selves.append(fn.class_info)
        try:
            flow = walk.suite(fn.node.body, [start])
        except (_Abandon, RecursionError):
            return None
        if walk.drops:
            return None
        out: list[vllm_summaries.PathEffects] = []
        for state in (flow.normal + flow.ret) or [start]:
            effects: vllm_summaries.PathEffects = {
                "freed": sorted({key for key, _ in state.freed}),
                "evicted": sorted(map(list, state.evicted)),
                "zeroed": sorted(map(list, state.zeroed)),
                "pending": sorted([key, sorted(missing)] for key, _, missing in state.pending),
            }
            keys = effects["freed"] + [e[0] for k in ("evicted", "zeroed", "pending") for e in effects[k]]
            if any(key.startswith("p:") for key in keys):
                return None
            if effects not in out:
                out.append(effects)
        return sorted(out, key=repr)

    def _own_texts(self, info):
        """The handler's module, then the project modules it imports (its helpers)."""
        yield info.text
        for ref in info.imports.values():
            for dotted in (ref.module, f"{ref.module}.{ref.name}" if ref.name else None):
                if not dotted and not ref.level:
                    continue
                path = self.project.find_module_file(dotted or "", info.path, ref.level)
                helper = self.project.loaded_module(path) if path is not None else None  # never loads more
                if helper is not None and helper is not info:
                    yield helper.text

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


class _Walk:
    """One entry function's walk."""

    def __init__(self, interp: Interpreter, entry, *, is_handler: bool, self_class=None, branch=None) -> None:
        self.interp = interp
        self.entry = entry
        self.branch = branch  # an `except` branch walked alone (a step guard), or None
        # The class `self` is an instance of in each frame (a handler class that inherits
        # `entry`: its overrides are the methods `self.x()` calls); reported in its module.
        self.selves: list = []
        self.self_class = self_class
        self.home = self_class.module if self_class is not None else entry.module
        self.is_handler = is_handler
        self.gen = interp.generation_of(entry)
        self.found: list[PathFact] = []
        self.steps = 0
        self.stack: list = []  # (Function, Site of the call into it)
        self.loops: list[list] = []  # request keys born in each enclosing loop
        self._names: dict = {}
        # Preempts that mark the request's stale output to be dropped (drop_stale_output=True,
        # reset_prefix_cache(reset_running_requests=True)), by id(node): a dropped frame when the
        # request still has stale tokens at the end of a path (see preempt()).
        self.drops: set[int] = set()
        self.harmful_drops: set[int] = set()
        # While a lambda read from a tree of our own (a class attribute of an outlined module,
        # `_module_tree`) runs: the call node its effects are located at (the linted file's
        # trees hold no node of that tree).
        self._relocate: cst.CSTNode | None = None
        self._relocate_depth = 0
        self._foreign: set[int] = set()  # id() of such lambdas
        # id(target) of a counter's decrement -> [Site, {by}, reached with the counter known
        # to be 0 on every path so far]
        self._decrements: dict[int, list] = {}

    # -- entry -----------------------------------------------------------------
    def run(self) -> None:
        fn = self.entry
        env = {}
        for param in fn.params:
            env[param] = None if param in ("self", "cls") and fn.is_method else Val.Param(param)
        frame, body = fn, (fn.node.body if self.branch is None else self.branch.body)
        wrapper = self._decorator_wrapper(fn) if self.branch is None else None
        if wrapper is not None:  # the decorator's wrapper runs, and calls `fn` where it does
            frame, body, env = wrapper
            if self.is_handler:
                self.interp._reached.add(frame)
        self.stack.append((frame, None))
        self.selves.append(self.self_class or fn.class_info)
        flow = self.suite(body, [State(env)])
        self.selves.pop()
        self.stack.pop()
        self._report_decrements()
        ends = flow.normal + flow.ret
        if self.branch is not None:  # the branch also ends where it leaves the loop around it
            ends += flow.cont + flow.brk
        for state in ends:
            if self.is_handler:
                # A free is judged on the path's final state: a freed request whose dirty tail no
                # eviction (before or after the free, with ids read before it) dropped.
                for key, site in state.freed:
                    gap = self.covered(state, key)
                    if gap is not None:
                        self._report_uncovered(site, gap)
            if not self.is_handler:
                continue  # a helper may leave the reset to its caller: asked from the handlers
            for _key, site, missing in state.pending:
                if id(site.node) in self.drops:
                    self.harmful_drops.add(id(site.node))
                    self._report_drop(site)
                else:
                    self._report_counters(site, missing)

    def _decorator_wrapper(self, fn):
        """`@deco` on `fn` where `deco` is a project function returning a function it
        defines (`def deco(f): def wrapper(self, exc): ...; return wrapper`): (wrapper,
        its body, its parameters with `f` bound to `fn`), for the innermost such decorator;
        None otherwise."""
        node = fn.node
        for decorator in reversed(node.decorators if node is not None else ()):
            expr = decorator.decorator
            if not isinstance(expr, (cst.Name, cst.Attribute)):
                continue
            ref = ir.callee_ref(expr)
            target = self.interp.project.resolve_call(fn, ref) if ref is not None else None
            deco = target[0] if target is not None else None
            if deco is None or not deco.params or deco.node is None:
                continue
            returned = [
                small.value.value
                for line in deco.node.body.body
                if isinstance(line, cst.SimpleStatementLine)
                for small in line.body
                if isinstance(small, cst.Return) and isinstance(small.value, cst.Name)
            ]
            wrapper = deco.nested.get(returned[0]) if len(returned) == 1 else None
            if wrapper is None or wrapper.node is None:
                continue
            self.interp.note(f"{fn.qualname}: walked through its decorator `{deco.qualname}`")
            env: dict[str, Val.Value] = {param: Val.Param(param) for param in wrapper.params}
            if fn.is_method and wrapper.params:
                env[wrapper.params[0]] = None  # `self`
            env[deco.params[0]] = Val.FunctionRef(fn, False)
            return wrapper, wrapper.node.body, env
        return None

    @property
    def fn(self):
        return self.stack[-1][0]

    def site(self, node: cst.CSTNode) -> Site:
        return Site(self.fn, self._relocated(node), self.stack[-1][1])

    def _relocated(self, node: cst.CSTNode) -> cst.CSTNode:
        if self._relocate is not None and len(self.stack) == self._relocate_depth:
            return self._relocate
        return node

    # -- reporting ---------------------------------------------------------------
    def _in_entry_module(self, site: Site) -> Site:
        """The innermost site of the chain in the entry's file: a free in a helper of
        another file is reported at the call that reaches it."""
        module = self.home
        current: Site | None = site
        while current is not None and current.fn.module is not module:
            current = current.caller
        return current or site

    def _add(self, fact: PathFact) -> None:
        if self._relocate is not None and fact.fn is self.fn and len(self.stack) == self._relocate_depth:
            fact = dataclasses.replace(fact, node=self._relocate)
            if isinstance(fact, ReadAfterFree):
                fact = dataclasses.replace(fact, reader=self._relocate)
        self.found.append(fact)

    def _report_uncovered(self, site: Site, gap: TailGap) -> None:
        where = self._in_entry_module(site)
        entry = self.entry.qualname if where.fn is not self.entry else None
        kind: Literal["free", "rewind", "requeue"] = site.rewind or "free"
        self._add(TailLeftCached(where.fn, where.node, gap, where is not site, entry, kind))

    def _report_drop(self, site: Site) -> None:
        node = site.node
        every = isinstance(node, cst.Call) and ir.called_name(node.func) == V.RESET_PREFIX_CACHE
        self._add(StaleFrameDropped(site.fn, node, every, (self.gen.counters or V.COUNTER_FIELDS)[0]))

    def _report_decrements(self) -> None:
        for site, bys, every_path in self._decrements.values():
            if not every_path:
                continue
            where = self._in_entry_module(site)
            target = cast(cst.Attribute, site.node)
            self._add(
                CounterDecrementedAtZero(
                    where.fn, where.node, target.attr.value, ir.code_of(target), max(bys), where is not site
                )
            )

    def _decrement(self, target, state: State) -> State:
        """`req.counter -= n` (n not 0), `req.counter = req.counter - n`: recorded with whether
        the counter is known to be 0 here; afterwards its value is not known."""
        base = self.ev_pure(target.value, state)
        key, field_name = Val.key_of(base), target.attr.value
        bys = {by for k, f, by in state.at_zero if k == key and f == field_name} if key is not None else set()
        entry = self._decrements.setdefault(id(target), [self.site(target), set(), True])
        entry[1] |= bys
        entry[2] = entry[2] and bool(bys)
        return _not_at_zero(state, key, field_name)

    def _report_counters(self, site: Site, missing) -> None:
        where = self._in_entry_module(site)
        request = _request_node(site.node)
        text = ir.code_of(request) if request is not None else "the request"
        self._add(
            CountersLeftSet(
                where.fn, where.node, request if where is site else None, text, self.gen.counters, where is not site
            )
        )

    # -- statements --------------------------------------------------------------
    def suite(self, suite, states: list) -> Flow:
        flow = Flow(normal=states)
        if suite is None:
            return flow
        body = [suite] if isinstance(suite, cst.SimpleStatementSuite) else getattr(suite, "body", ())
        for statement in body:
            if not flow.normal:
                break
            step = self.statement(statement, flow.normal)
            flow.normal = step.normal
            flow.add(step, normal=False)
        flow.normal = _dedupe(flow.normal)
        return flow

    def statement(self, node, states: list) -> Flow:
        if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            flow = Flow(normal=states)
            for small in node.body:
                if not flow.normal:
                    break
                step = self.small(small, flow.normal)
                flow.normal = step.normal
                flow.add(step, normal=False)
            return flow
        if isinstance(node, cst.If):
            return self._if(node, states)
        if isinstance(node, cst.For):
            return self._for(node, states)
        if isinstance(node, cst.While):
            return self._while(node, states)
        if isinstance(node, (cst.Try, cst.TryStar)):
            return self._try(node, states)
        if isinstance(node, cst.With):
            return self._with(node, states)
        if isinstance(node, cst.Match):
            flow = Flow()
            entered = [s for _, s in self.ev_all(node.subject, states)]
            irrefutable = False
            for case in node.cases:
                flow.add(self.suite(case.body, entered))
                irrefutable |= (
                    isinstance(case.pattern, cst.MatchAs) and case.pattern.pattern is None and case.guard is None
                )
            if not irrefutable:
                flow.normal += entered
            return flow
        if isinstance(node, cst.FunctionDef):
            nested = self.fn.nested.get(node.name.value)
            if nested is not None:
                return Flow(normal=[s.bind(node.name.value, Val.FunctionRef(nested, False)) for s in states])
        return Flow(normal=states)

    def _with(self, node: cst.With, states: list) -> Flow:
        """`with cm(...) as x:`; a project `@contextmanager` of a shape `_yield_split` knows
        runs its code before the `yield` on entry and the rest on exit, after the body
        (evictions in its `finally` come after the body's frees)."""
        exits: list[tuple[str, _Split, cst.Call]] = []
        for item in node.items:
            split = self._context_manager(item.item)
            if split is None:
                results = self.ev_all(item.item, states)
            else:
                tag = f"<ctx{id(item)}>"
                exits.append((tag, split, cast(cst.Call, item.item)))
                results = self._enter(split, tag, cast(cst.Call, item.item), states)
            states = [self.assign(item.asname.name, v, s) if item.asname else s for v, s in results]
        flow = self.suite(node.body, states)
        for tag, split, call in reversed(exits):
            flow.normal = self._exit(split, tag, call, flow.normal)
            flow.ret = self._exit(split, tag, call, flow.ret)
        return flow

    def _context_manager(self, expr) -> _Split | None:
        if not isinstance(expr, cst.Call):
            return None
        ref = ir.callee_ref(expr.func)
        target = self.resolve(ref) if ref is not None else None
        if target is None or target[0].node is None:
            return None
        fn, via_instance = target
        names = {ir.dotted_name(d.decorator) or "" for d in fn.node.decorators}
        if not any(n.rsplit(".", 1)[-1] == "contextmanager" for n in names):
            return None
        parts = _yield_split(list(fn.node.body.body))
        return _Split(fn, via_instance, *parts) if parts is not None else None

    def _enter(self, split: _Split, tag: str, call: cst.Call, states: list) -> list:
        out: list = []
        called = [(values, s) for st in states for values, s in self.ev_seq([a.value for a in call.args], st)]
        for values, s in called:
            args, keywords = _split(call.args, values)
            env = self._frame_env(split.fn, split.via_instance, args, keywords)
            if self.is_handler:
                self.interp._reached.add(split.fn)
            self.stack.append((split.fn, self.site(call)))
            self.selves.append(self._self_class_of(split.fn, split.via_instance))
            try:
                flow = self.suite(_Body(split.before), [s.replace(env=env)])
                for inside in flow.normal:
                    yielded = self.ev(split.yielded, inside) if split.yielded is not None else [(Val.NONE, inside)]
                    for value, after in yielded:
                        frame = Val.Frame(tuple(after.env.items()))
                        out.append((value, after.replace(env=s.env).bind(tag, frame)))
            finally:
                self.selves.pop()
                self.stack.pop()
        return out

    def _exit(self, split: _Split, tag: str, call: cst.Call, states: list) -> list:
        out: list = []
        for s in states:
            frame = s.env.get(tag)
            caller_env = {n: v for n, v in s.env.items() if n != tag}
            if not isinstance(frame, Val.Frame):
                out.append(s.replace(env=caller_env))
                continue
            self.stack.append((split.fn, self.site(call)))  # reached from the `with`, as on entry
            self.selves.append(self._self_class_of(split.fn, split.via_instance))
            try:
                flow = self.suite(_Body(split.after), [s.replace(env=dict(frame.env))])
            finally:
                self.selves.pop()
                self.stack.pop()
            out.extend(after.replace(env=caller_env) for after in flow.normal + flow.ret)
        return _dedupe(out)

    def _if(self, node: cst.If, states: list) -> Flow:
        flow = Flow()
        current: cst.CSTNode | None = node
        while isinstance(current, cst.If):  # an elif chain, iterated
            taken, skipped = [], []
            gate = self._gate(current.test)
            for value, s in self.ev_all(current.test, states):
                truth = Val.truth(value)
                if truth is not False:
                    taken.append(_mark(self._guard(current.test, s, True), gate, True))
                if truth is not True:
                    skipped.append(_mark(self._guard(current.test, s, False), gate, False))
            dropping = bool(taken) and self._drops_by_length(current.test, taken[0])
            if dropping:  # `if b.block_id < len(blocks): ids.add(...)`: what it adds is filtered
                taken = [t.bind("<dropping>", Val.TRUE) for t in taken]
            body = self.suite(current.body, taken)
            if dropping:
                body = _unbind(body, "<dropping>")
            if body.cont and self.loops and not self._legit_skip(current.test, taken[0] if taken else None):
                body.cont = [c.replace(evicted=c.evicted | {("#skip", "skip")}) for c in body.cont]
            flow.add(body)
            states = skipped
            current = current.orelse
        if isinstance(current, cst.Else):
            flow.add(self.suite(current.body, states))
        else:
            flow.normal += states
        flow.normal = _dedupe(flow.normal)
        return flow

    def _gate(self, test) -> str | None:
        """In the body of a loop over the running requests, a test that is not about a
        request's dirty tail (`isinstance(exc, ...)`, a flag): an eviction on one of its
        sides covers the iterations that took that side only (see _promote)."""
        if not (self.loops and self.loops[-1]) or self._legit_skip(test, self._current):
            return None
        inner = test.expression if isinstance(test, cst.UnaryOperation) else test
        if isinstance(inner, cst.Name) or (isinstance(inner, cst.Call) and ir.called_name(inner.func) == "len"):
            return None  # `if ids:`, `if not found:`: a local the walk may not know, not a gate
        return f"{id(test)}"

    def _guard(self, test, state: State, holds: bool) -> State:
        """`if ids:` / `if not ids:`: on the path where the block ids are empty there was
        nothing to evict, which is as good as evicting them."""
        for field_name in _counters_read(test):  # `if req.num_output_placeholders > 0:`: tested
            state = _not_at_zero(state, None, field_name)
        negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        inner = test.expression if negated else test
        if (
            isinstance(inner, cst.Call)
            and isinstance(inner.func, cst.Name)
            and inner.func.value == "len"
            and inner.args
        ):
            inner = inner.args[0].value
        if isinstance(inner, cst.Attribute) and inner.attr.value == V.COUNTER_FIELDS[0] and holds == negated:
            return self._in_flight_zero(inner, state)
        name = ir.dotted_name(inner) if isinstance(inner, (cst.Name, cst.Attribute)) else None
        value = state.env.get(name) if name else None
        if not isinstance(value, Val.Ids) or value.stale or holds != negated:
            return state
        return state.replace(evicted=state.evicted | {(value.key or "*", Val.quality(value))})

    def _in_flight_zero(self, test: cst.Attribute, state: State) -> State:
        """The path where `req.num_in_flight_tokens` is falsy: 0. A request preempted with
        it still unchanged had it at 0 at the preempt, which copied that 0 into
        num_stale_output_tokens (current API): neither counter is left to reset."""
        key = Val.key_of(self.ev_pure(test.value, state))
        if key is None:
            return state
        in_flight = V.COUNTER_FIELDS[0]
        pending = set()
        for k, site, missing in state.pending:
            if k == key and in_flight in missing:
                missing = missing - (
                    {in_flight, *self.gen.counters} if self.gen.preempt_copies_in_flight else {in_flight}
                )
                if not missing:
                    continue
            pending.add((k, site, missing))
        return state.replace(pending=frozenset(pending), zeroed=state.zeroed | {(key, in_flight)})

    def _legit_skip(self, test, state: State | None) -> bool:
        """Skipping a request is fine when it has no dirty tail (no in-flight tokens,
        nothing computed) or for a block that holds no hash (null, unhashed)."""
        text = ir.code_of(test)
        if any(word in text for word in (*V.TAIL_BOUNDARY, V.BLOCK_IS_NULL, V.BLOCK_HASH_ATTR)):
            return True
        if state is not None:
            for name, value in state.env.items():
                if Val.num_kind(value) in ("confirmed", "inflight", "computed", "cblk") and name in text:
                    return True
        return False

    def small(self, node, states: list) -> Flow:
        if isinstance(node, cst.Return):
            if node.value is None:
                return Flow(ret=[s.bind("<return>", Val.NONE) for s in states])
            return Flow(ret=[s.bind("<return>", v) for v, s in self.ev_all(node.value, states)])
        if isinstance(node, cst.Raise):
            if node.exc is not None:
                states = [s for _, s in self.ev_all(node.exc, states)]
            return Flow(exc=states)
        if isinstance(node, cst.Break):
            return Flow(brk=states)
        if isinstance(node, cst.Continue):
            return Flow(cont=states)
        if isinstance(node, cst.Assign):
            out = []
            for value, state in self.ev_all(node.value, states):
                for target in node.targets:
                    if _decrements(target.target, node.value):
                        state = self._decrement(target.target, state)
                    state = self.assign(target.target, value, state)
                out.append(state)
            return Flow(normal=out)
        if isinstance(node, cst.AnnAssign):
            if node.value is None:
                return Flow(normal=states)
            return Flow(normal=[self.assign(node.target, v, s) for v, s in self.ev_all(node.value, states)])
        if isinstance(node, cst.AugAssign):
            out = []
            for value, state in self.ev_all(node.value, states):
                name = ir.dotted_name(node.target)
                aug = node.target
                if isinstance(aug, cst.Attribute) and aug.attr.value == V.NUM_COMPUTED_TOKENS:
                    state = self.rewind(self.ev_pure(aug.value, state), aug, state)
                if isinstance(aug, cst.Attribute) and aug.attr.value in V.ALL_COUNTER_FIELDS:
                    if isinstance(node.operator, cst.SubtractAssign) and value != Val.ZERO:
                        state = self._decrement(aug, state)
                    else:
                        state = _not_at_zero(state, Val.key_of(self.ev_pure(aug.value, state)), aug.attr.value)
                if name is not None:
                    old = state.env.get(name)
                    if Val.is_ids(old) and Val.is_ids(value):
                        state = state.bind(name, Val.join_ids(old, value))
                    elif not Val.is_ids(old):
                        state = state.bind(name, Val.OTHER if isinstance(old, Val.Num) else None)
                out.append(state)
            return Flow(normal=out)
        if isinstance(node, cst.Expr):
            return Flow(normal=[s for _, s in self.ev_all(node.value, states)])
        if isinstance(node, cst.Assert):
            return Flow(normal=[s for _, s in self.ev_all(node.test, states)])
        return Flow(normal=states)

    def _loop_body(self, body, states: list, bind) -> Flow:
        """The body twice (the second pass sees what the first collected); a loop over
        no requests frees nothing, so the body runs at least once."""
        first = self.suite(body, [bind(s) for s in states])
        again = _dedupe(states + self._retire(first.normal + first.cont))
        second = self.suite(body, [bind(s) for s in again])
        second.brk += first.brk
        second.ret += first.ret
        second.exc += first.exc
        return second

    def _for(self, node: cst.For, states: list) -> Flow:
        states = self._tag_entries(states)
        self.loops.append([])
        flow = Flow()
        for iterable, state in self.ev_all(node.iter, states):
            element = self.element(iterable, node, node.target, [node.body])
            body = self._loop_body(node.body, [state], lambda s, e=element: self.assign(node.target, e, s))
            flow.add(body, normal=False)
            flow.normal += body.normal + body.cont
        born = self.loops.pop()
        if not born:
            flow.normal, flow.brk = self._clear_skips(flow.normal), self._clear_skips(flow.brk)
            flow.normal = _fill_accumulators(states, flow.normal)
        elif _breaks_always(node.body):
            # `for req in running: ...; break`: only the first request is handled, the loop
            # ends for the others (not an `if ids:` guard)
            flow.brk = [s.replace(evicted=s.evicted | {("#skip", "skip")}) for s in flow.brk]
        exits = self._promote(flow.normal, born)
        flow.brk = self._promote(flow.brk, born)
        after = self.suite(node.orelse.body, exits) if node.orelse else Flow(normal=exits)
        out = Flow(
            normal=after.normal + flow.brk, ret=self._promote(flow.ret, born) + after.ret, exc=flow.exc + after.exc
        )
        out.brk, out.cont = after.brk, after.cont
        out.normal = _dedupe(out.normal)
        return out

    def _while(self, node: cst.While, states: list) -> Flow:
        states = self._tag_entries(states)
        self.loops.append([])
        entered = [s for _, s in self.ev_all(node.test, states)]
        body = self._loop_body(node.body, entered, lambda s: s)
        born = self.loops.pop()
        exits = self._promote([s for _, s in self.ev_all(node.test, body.normal + body.cont)] or entered, born)
        after = self.suite(node.orelse.body, exits) if node.orelse else Flow(normal=exits)
        out = Flow(
            normal=after.normal + self._promote(body.brk, born),
            ret=self._promote(body.ret, born) + after.ret,
            exc=body.exc + after.exc,
        )
        out.brk, out.cont = after.brk, after.cont
        out.normal = _dedupe(out.normal)
        return out

    def _retire(self, states: list) -> list:
        """Before the next iteration: the request of the previous one is another request
        (its frees do not empty the next one's blocks, its evictions do not cover it)."""
        born = set(self.loops[-1]) if self.loops else set()
        if not born:
            return states
        old = lambda k: k + "'" if k in born else k  # noqa: E731
        return [
            s.replace(
                evicted=frozenset((old(k), q) for k, q in s.evicted),
                freed=frozenset((old(k), site) for k, site in s.freed),
                pending=frozenset((old(k), site, m) for k, site, m in s.pending),
                zeroed=frozenset((old(k), f) for k, f in s.zeroed),
                at_zero=frozenset((old(k), f, by) for k, f, by in s.at_zero),
            )
            for s in states
        ]

    def _tag_entries(self, states: list) -> list:
        """Each path into a loop, numbered (`_promote` spreads an iteration's eviction only
        to the iterations of the same path: not to a path that never made it)."""
        tag = f"<entry{len(self.loops)}>"
        return [s.bind(tag, Val.Entry(i)) for i, s in enumerate(states)]

    def _promote(self, states: list, keys: list) -> list:
        """After a loop over the running requests, what it did to "each request" it did
        to every running request ("*")."""
        tag = f"<entry{len(self.loops)}>"
        if not keys:
            return [_without(s, tag) for s in states]
        born = set(keys) | {k + "'" for k in keys}
        # A loop that skips some requests for another reason than "no dirty tail" evicts
        # for only part of them.
        skipped = any(("#skip", "skip") in st.evicted for st in states)
        every = "partial" if skipped else "*"
        # An iteration may skip a request (no in-flight tokens, a null block): an eviction
        # some iteration does counts for the loop's every exit.
        # ... except across a gate (_gate): only the iterations on the same side of it.
        each: dict = {}
        for st in states:
            side = (_gates(st), st.env.get(tag))
            each.setdefault(side, set()).update(
                (every if k in born else k, q) for k, q in st.evicted if k in born or k == "*"
            )
        out = []
        for s in states:
            out.append(
                s.replace(
                    evicted=frozenset(
                        (every if k in born else k, q) for k, q in s.evicted if k not in ("#skip", "#gate")
                    )
                    | frozenset(each.get((_gates(s), s.env.get(tag)), ())),
                    freed=frozenset(("*" if k in born else k, site) for k, site in s.freed),
                    pending=frozenset(("*" if k in born else k, site, m) for k, site, m in s.pending),
                    zeroed=frozenset(("*" if k in born else k, f) for k, f in s.zeroed),
                    at_zero=frozenset(z for z in s.at_zero if z[0] not in born),
                    env={
                        n: (Val.with_key(v, every) if isinstance(v, Val.Ids) and v.key in born else v)
                        for n, v in s.env.items()
                        if n != tag
                    },
                )
            )
        return out

    def _clear_skips(self, states: list) -> list:
        """A loop over something else than the running requests (blocks, groups) skips
        no request."""
        return [
            s.replace(evicted=s.evicted - {("#skip", "skip")}) if ("#skip", "skip") in s.evicted else s for s in states
        ]

    def _try(self, node, states: list) -> Flow:
        raised = list(states)  # an exception may leave the body before any statement
        body = Flow(normal=states)
        # `try: x()` on one line: its body is a SimpleStatementSuite, one statement
        statements = [node.body] if isinstance(node.body, cst.SimpleStatementSuite) else node.body.body
        for statement in statements:
            if not body.normal:
                break
            step = self.statement(statement, body.normal)
            body.normal = step.normal
            body.add(step, normal=False)
            raised += body.normal
        raised += body.exc
        flow = self.suite(node.orelse.body, body.normal) if node.orelse else Flow(normal=body.normal)
        flow.brk += body.brk
        flow.cont += body.cont
        flow.ret += body.ret
        if node.handlers:
            raised = _dedupe(raised)
            for handler in node.handlers:
                flow.add(self.suite(handler.body, raised))
        else:
            flow.exc += raised
        if not node.finalbody:
            return flow
        final = Flow()
        for attr in ("normal", "brk", "cont", "ret", "exc"):
            entering = getattr(flow, attr)
            if not entering:
                continue
            out = self.suite(node.finalbody.body, _dedupe(entering))
            getattr(final, attr).extend(out.normal)
            final.ret += out.ret
            final.exc += out.exc
        return final

    # -- binding -------------------------------------------------------------------
    def assign(self, target, value, state: State) -> State:
        if isinstance(target, cst.Name):
            return state.bind(target.value, value)
        if isinstance(target, cst.Attribute):
            base = self.ev_pure(target.value, state)
            if target.attr.value == V.NUM_COMPUTED_TOKENS:
                state = self.rewind(base, target, state)
            if target.attr.value in V.ALL_COUNTER_FIELDS and base is None and value in (Val.ZERO, None):
                state = self.may_reset(None, state, f"`{ir.code_of(target)}` is written on an object it cannot tell")
                state = _not_at_zero(state, None, target.attr.value)
            elif target.attr.value in V.ALL_COUNTER_FIELDS and value == Val.ZERO:
                state = self.reset(Val.key_of(base), target.attr.value, state)
            elif target.attr.value in V.ALL_COUNTER_FIELDS:  # set again: no longer known to be 0
                key = Val.key_of(base)
                state = state.replace(zeroed=frozenset(z for z in state.zeroed if z != (key, target.attr.value)))
                state = _not_at_zero(state, key, target.attr.value) if key is not None else state
            name = ir.dotted_name(target)
            return state.bind(name, value) if name else state
        if isinstance(target, (cst.Tuple, cst.List)):
            elements = [el.value for el in target.elements]
            parts = value.items if isinstance(value, Val.Seq) and len(value.items) == len(elements) else None
            for index, element in enumerate(elements):
                if isinstance(element, cst.StarredElement):
                    element = element.value
                part = parts[index] if parts else (value if Val.is_ids(value) else None)  # (group,) = block ids
                state = self.assign(element, part, state)
            return state
        if isinstance(target, cst.Subscript):
            name = ir.dotted_name(target.value)
            old = state.env.get(name) if name else None
            if name is not None and isinstance(old, Val.Table) and len(target.slice) == 1:
                index_node = getattr(target.slice[0].slice, "value", None)
                key = self.ev_pure(index_node, state) if index_node is not None else None
                if isinstance(key, Val.Str):
                    items = (*(kv for kv in old.items if kv[0] != key.text), (key.text, value))
                    return state.bind(name, Val.Table(items))
        return state

    def element(self, iterable: Val.Value, node, target, scope) -> Val.Value:
        """What the loop variable (or comprehension target) denotes on each iteration."""
        if iterable is None:
            # Another queue (`scheduler.waiting`, a list the walk cannot see into): its
            # items may be requests, but not the running ones.
            return Val.Req(f"q:{id(node)}")
        if isinstance(iterable, Val.Running):
            return self.new_request(node)
        if isinstance(iterable, Val.Each):  # the element made for each request, for this loop's request
            fresh = self.new_request(node).key
            template = iterable.template
            for old in iterable.born:
                template = Val.rekey(template, old, fresh)
            return template
        if isinstance(iterable, Val.Ids):
            return iterable
        if isinstance(iterable, Val.Managers):
            return Val.Manager("all")
        if isinstance(iterable, Val.Seq) and iterable.items:
            names = [v.text for v in iterable.items if isinstance(v, Val.Str)]
            if len(names) == len(iterable.items):
                return Val.Strs(tuple(names))  # `for field in COUNTERS: setattr(r, field, 0)`
            # `for req in [req]:`: the one item (several: what they have in common, else unknown)
            return Val.join_all(list(iterable.items))
        if isinstance(iterable, Val.TableItems) and iterable.items:
            keys = [k for k, _ in iterable.items if isinstance(k, str)]
            if len(keys) == len(iterable.items):
                # `for field, value in {"num_in_flight_tokens": 0, ...}.items(): setattr(r, field, value)`
                return Val.Seq((Val.Strs(tuple(keys)), Val.join_all([v for _, v in iterable.items])))
            return None
        if isinstance(iterable, Val.Enumerated):
            inner = self.element(iterable.of, node, None, scope)
            names = _target_names(target)
            start = self._index_filter(names[0], scope) if names else None
            if isinstance(inner, Val.Ids):
                index = Val.Index(inner, start or "whole")
                if start is not None and inner.start == "whole":
                    inner = Val.with_start(inner, start)
                return Val.Seq((index, inner))
            return Val.Seq((Val.OTHER, inner))
        if isinstance(iterable, Val.Range):
            names = _target_names(target)
            filtered = self._index_filter(names[0], scope) if names else None
            stop = iterable.stop
            start = iterable.start if filtered is None else filtered
            if isinstance(stop, Val.Length) and isinstance(stop.of, (Val.Ids, Val.Managers)):
                return Val.Index(stop.of, start if isinstance(stop.of, Val.Ids) else "whole")
            return Val.OTHER
        return None

    def _index_filter(self, name: str, scope) -> str | None:
        """Where an index filter (`if i < first: continue`, `if i >= first`) starts the
        range: the kind of number it compares the index with; None without a filter."""
        found = None
        for node in scope:
            for comparison in _comparisons(node):
                operands = [comparison.left, *(c.comparator for c in comparison.comparisons)]
                if not any(isinstance(c.operator, _COMPARE_OPS) for c in comparison.comparisons):
                    continue
                if not any(isinstance(o, cst.Name) and o.value == name for o in operands):
                    continue
                for operand in operands:
                    if not (isinstance(operand, cst.Name) and operand.value == name):
                        value = self.ev_pure(operand, self._current or State({}))
                        kind = Val.num_kind(value)
                        found = Val.start_from_index(kind)
        return found

    _current: State | None = None

    def new_request(self, node) -> Val.Req:
        key = f"it:{id(node)}"
        if self.loops and key not in self.loops[-1]:
            self.loops[-1].append(key)
        return Val.Req(key)

    # -- effects ---------------------------------------------------------------------
    def covered(self, state: State, key: str) -> TailGap | None:
        """None when the request's dirty tail was evicted on this path, else how not."""
        qualities = {q for k, q in state.evicted if _may_cover(k, key)}
        if "ok" in qualities:
            return None
        for gap in ("late", "head", "dropped", "first-group"):
            if gap in qualities:
                return gap
        return "none"

    def free(self, key: str | None, node, state: State) -> State:
        return state.replace(freed=state.freed | {(key or "*", self.site(node))})

    def rewind(self, base, node, state: State, kind: Literal["rewind", "requeue"] = "rewind") -> State:
        """`request.num_computed_tokens = ...` (or `-=`): the request is rewound in place and
        keeps its blocks, hashes included: its dirty tail must be evicted like a freed one's.
        Silent where the request is unknown or not a running one (a waiting request has no
        blocks of the failed step)."""
        key = Val.key_of(base)
        if key is None or key.startswith(("q:", "p:")):
            return state
        site = Site(self.fn, node, self.stack[-1][1], rewind=kind)
        return state.replace(freed=state.freed | {(key, site)})

    def preempt(self, request, drop: bool, node, state: State, *, flag_undone_by_resets: bool = False) -> State:
        """`_preempt_request` frees the request's blocks and sets num_stale_output_tokens =
        num_in_flight_tokens (vLLM's scheduler.py): the request resumes cleanly when both
        counters are 0 afterwards, or num_in_flight_tokens was 0 at the preempt.

        drop_stale_output=True marks those stale tokens to be dropped: nothing is dropped
        when num_in_flight_tokens is 0 at the preempt. A flag the handler passes itself is a
        StaleFrameDropped otherwise; the one `reset_prefix_cache(reset_running_requests=True)`
        passes is one only while the counters are still set at the end of the path
        (resetting both undoes it)."""
        key = Val.key_of(request)
        state = self.free(key, node, state)
        zeroed = {f for k, f in state.zeroed if k in (key, "*")} if key is not None else set()
        if drop:
            self.drops.add(id(node))
            in_flight_zero = self.gen.preempt_copies_in_flight and V.COUNTER_FIELDS[0] in zeroed
            if in_flight_zero:
                return state  # num_stale_output_tokens becomes 0: no frame to drop, no counter to reset
            if not flag_undone_by_resets or key is None:
                self.harmful_drops.add(id(node))
                if self.is_handler:
                    self._report_drop(self.site(node))
                return state
        if key is None:
            return state
        if self.gen.preempt_copies_in_flight:
            missing = frozenset() if V.COUNTER_FIELDS[0] in zeroed else frozenset(self.gen.counters)
        else:
            missing = frozenset(self.gen.counters) - zeroed
        if not missing:
            return state
        return state.replace(pending=state.pending | {(key, self.site(node), missing)})

    def write_fields(self, target, args, keywords, state: State) -> State:
        """Fields written on `target` (a request, or unknown) from a mapping: `setattr(r, f, v)`,
        `vars(r).update(...)`, a helper's `**fields`. A 0 resets a counter; a write the walk cannot
        read (an unknown name, value, mapping or object) may reset one: the preempts it may
        concern are no longer reported (precision first)."""
        key = Val.key_of(target)
        mapping = args[0] if args else Val.Table(())
        if not isinstance(mapping, Val.Table) or UNKNOWN_KEYWORDS in keywords:
            return self.may_reset(key, state, "fields written from a mapping it cannot read")
        items = [*mapping.items, *keywords.items()]
        for field_name, value in items:
            if field_name not in V.ALL_COUNTER_FIELDS:
                continue
            if key is None or value is None:
                state = self.may_reset(
                    key, state, f"`{field_name}` written with a value or on an object it cannot tell"
                )
            elif value == Val.ZERO:
                state = self.reset(key, field_name, state)
            else:
                state = state.replace(zeroed=frozenset(z for z in state.zeroed if z != (key, field_name)))
                state = _not_at_zero(state, key, field_name)
        return state

    def may_reset(self, key: str | None, state: State, why: str) -> State:
        """A write that may set the counters of request `key` (None: of any request) to 0."""
        state = _not_at_zero(state, key, None)
        kept = frozenset(p for p in state.pending if key is not None and p[0] not in (key, "*"))
        if kept == state.pending:
            return state
        self.interp.note(f"{self.fn.qualname}: {why}; the counters it may reset are not reported")
        return state.replace(pending=kept)

    def reset(self, key: str | None, counter: str, state: State) -> State:
        if key is None:
            return state
        state = _not_at_zero(state, key, counter)
        state = state.replace(at_zero=state.at_zero | {(key, counter, "")})
        pending = set()
        matched = False
        for item in state.pending:
            k, site, missing = item
            if k == key or (k == "*" and any(key in loop for loop in self.loops)):
                matched = True
                missing = missing - {counter}
                if missing:
                    pending.add((k, site, missing))
            else:
                pending.add(item)
        if matched:
            return state.replace(pending=frozenset(pending))
        return state.replace(zeroed=state.zeroed | {(key, counter)})

    def evict(self, value: Val.Value, node, state: State) -> State:
        if not isinstance(value, Val.Ids):
            return state.replace(evicted=state.evicted | {("*", "ok")})
        key, start = value.key or "*", value.start
        if value.stale:
            self._stale(key, node, state, "evict")
            return state
        if start in ("whole", "early", "head", "lhead", "ehead"):
            self._broad(value, node, "head" if start in ("lhead", "ehead") else start)
        return state.replace(evicted=state.evicted | {(key, Val.quality(value))})

    def reset_prefix_cache(self, name: str, args, keywords, node, state: State):
        """`Scheduler.reset_prefix_cache(reset_running_requests=True)` preempts every running
        request with drop_stale_output=True, then `KVCacheManager.reset_prefix_cache()` drops
        the hash of every block in the pool, which succeeds only once no request holds
        blocks (block_pool.py): a BroadEviction when it runs after every request was freed
        or preempted, or with reset_running_requests=True."""
        here = self.site(node)
        self._add(PrefixCacheResetCalled(here.fn, node))
        keyword, index = V.RESET_RUNNING_REQUESTS
        flag = keywords.get(keyword, args[index] if len(args) > index else None)
        preempts = flag == Val.TRUE
        if preempts:
            state = self.preempt(Val.Req("*"), True, node, state, flag_undone_by_resets=True)
        if preempts or "*" in state.freed_keys():
            site = self.site(node)
            self._add(BroadEviction(site.fn, node, "pool", name, False, self.gen.in_flight))
            # It succeeds: no dirty tail is left to blame on a missing eviction.
            return Val.NONE, state.replace(evicted=state.evicted | {("*", "ok")})
        # Otherwise running requests still hold blocks: it fails and drops no hash.
        return Val.NONE, state

    def _stale(self, key: str, node, state: State, reading: Literal["evict", "zero"]) -> None:
        for freed_key, site in state.freed:
            if not site.rewind and (freed_key in (key, "*") or key == "*"):
                self._add(ReadAfterFree(site.fn, site.node, node, reading))

    def _broad(self, value: Val.Ids, node, start: str) -> None:
        origin = value.origin
        site = self.site(node)
        where = site
        current: Site | None = site
        while current is not None:
            if current.fn is origin:
                where = current
                break
            current = current.caller
        name = ir.called_name(node.func) if isinstance(node, cst.Call) else V.EVICT_BLOCKS
        extent = cast("Extent", start if start in ("whole", "head") else "margin")
        self._add(
            BroadEviction(where.fn, where.node, extent, name or V.EVICT_BLOCKS, where is not site, self.gen.in_flight)
        )

    def primitive(self, name: str, args: list, keywords: dict, node, state: State, receiver_name: str = ""):
        """The effect of a vLLM primitive; returns (value, state)."""
        kind = V.EFFECTS.get(name)
        if name == "free" and receiver_name.endswith(V.KV_MANAGER_FREE[0]):
            kind = "free"
        if kind in ("evict", "zero") and not (self._relocate is not None and len(self.stack) == self._relocate_depth):
            self._add(EvictionCalled(self.fn, node, name))
        if kind == "evict":
            value = args[0] if args else keywords.get("block_ids")
            return Val.NONE, self.evict(value, node, state)
        if kind == "zero":
            request = keywords.get(V.REQUEST_ID, args[0] if args else None)
            start = keywords.get(V.ZEROING_START_ARG[0], args[1] if len(args) > 1 else None)
            key = Val.key_of(request)
            freed = state.freed_keys()
            if key is not None and (key in freed or "*" in freed):
                # freed: it records nothing (req_to_blocks was popped), so it zeroes no
                # block, let alone every one: a read after the free, not a broad one
                self._stale(key, node, state, "zero")
            elif start == Val.ZERO:
                site = self.site(node)
                self._add(BroadEviction(site.fn, node, "from-token-zero", name, False, self.gen.in_flight))
            return Val.NONE, state
        if kind == "preempt":
            named = [keywords[k] for k in ir.REQUEST_KEYWORDS if k in keywords]
            request = named[0] if named else (args[0] if args else None)
            drop = keywords.get(V.DROP_STALE_OUTPUT, args[2] if len(args) > 2 else None) == Val.TRUE
            state = self.preempt(request, drop, node, state)
            key = Val.key_of(request)
            if self.gen.preempt_copies_in_flight and key is not None:  # vLLM >= 0.27: it sets the placeholders to 0
                state = _not_at_zero(state, key, V.NUM_OUTPUT_PLACEHOLDERS)
                state = state.replace(at_zero=state.at_zero | {(key, V.NUM_OUTPUT_PLACEHOLDERS, name)})
            return Val.NONE, state
        if kind == "finish":
            target = keywords.get("request_ids", args[0] if args else None)
            key = Val.key_of(target)
            if key is None and isinstance(target, Val.Seq) and len(target.items) == 1:
                key = Val.key_of(target.items[0])
            return None, self.free(key, node, state)
        if kind == "free":
            request = keywords.get("request", args[0] if args else None)
            return Val.NONE, self.free(Val.key_of(request), node, state)
        if kind == "reset-prefix-cache":
            return self.reset_prefix_cache(name, args, keywords, node, state)
        return None, state

    # -- expressions ----------------------------------------------------------------------
    def ev_pure(self, node, state: State):
        """A value without its effects (headers of index filters, assignment bases)."""
        results = self.ev(node, state)
        return results[0][0] if len(results) == 1 else None

    def ev_all(self, node, states: list) -> list:
        out = []
        for state in states:
            out.extend(self.ev(node, state))
        if len(out) > MAX_STATES:
            merged = _merge([s for _, s in out])
            value = out[0][0]
            for v, _ in out[1:]:
                value = Val.join(value, v)
            return [(value, merged)]
        return out

    def ev_seq(self, nodes: list, state: State) -> list:
        """Evaluate nodes left to right: [(values, state)]."""
        results: list[tuple[tuple, State]] = [((), state)]
        for node in nodes:
            nxt = []
            for values, current in results:
                for value, after in self.ev(node, current):
                    nxt.append(((*values, value), after))
            results = nxt if len(nxt) <= MAX_STATES else [(nxt[0][0], _merge([s for _, s in nxt]))]
        return results

    def ev(self, node, state: State) -> list:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _Abandon()
        self._current = state
        if isinstance(node, cst.Name):
            return [(self.name(node.value, state), state)]
        if isinstance(node, cst.Integer):
            return [(Val.ZERO if node.value == "0" else Val.OTHER, state)]
        if isinstance(node, cst.SimpleString):
            try:
                text = node.evaluated_value
            except Exception:  # noqa: BLE001 - a string we cannot read is just unknown
                return [(None, state)]
            return [(Val.Str(text) if isinstance(text, str) else None, state)]
        if isinstance(node, cst.Attribute):
            dotted = ir.dotted_name(node)
            if dotted is not None and dotted in state.env:
                return [(state.env[dotted], state)]
            return [(self.attribute(base, node.attr.value, node), after) for base, after in self.ev(node.value, state)]
        if isinstance(node, cst.Call):
            return self.call(node, state)
        if isinstance(node, cst.Subscript):
            return self.subscript(node, state)
        if isinstance(node, cst.BinaryOperation):
            return [
                (self.binary(node.operator, left, right), s)
                for (left, right), s in self.ev_seq([node.left, node.right], state)
            ]
        if isinstance(node, cst.BooleanOperation):
            return [(Val.join(left, right), s) for (left, right), s in self.ev_seq([node.left, node.right], state)]
        if isinstance(node, cst.UnaryOperation):
            minus = isinstance(node.operator, cst.Minus)
            return [(Val.negated(v) if minus else None, s) for v, s in self.ev(node.expression, state)]
        if isinstance(node, cst.Comparison):
            nodes = [node.left, *(c.comparator for c in node.comparisons)]
            return [(None, s) for _, s in self.ev_seq(nodes, state)]
        if isinstance(node, cst.IfExp):
            return self._ev_if_exp(node, state)
        if isinstance(node, (cst.List, cst.Set, cst.Tuple)):
            parts = [el.value for el in node.elements]
            out = []
            for values, s in self.ev_seq(parts, state):
                out.append((self.collection(values), s))
            return out
        if isinstance(node, cst.Dict):
            return self._ev_dict(node, state)
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            return self.comprehension(node, state)
        if isinstance(node, cst.Await):
            return self.ev(node.expression, state)
        if isinstance(node, cst.StarredElement):
            return self.ev(node.value, state)
        if isinstance(node, cst.NamedExpr):
            return [(v, self.assign(node.target, v, s)) for v, s in self.ev(node.value, state)]
        if isinstance(node, cst.Yield) and node.value is not None:
            value = node.value.item if isinstance(node.value, cst.From) else node.value
            out = []
            for v, s in self.ev(value, state):
                old = s.env.get("<yield>")
                out.append((None, s.bind("<yield>", v if old is None else Val.join(old, v))))
            return out
        if isinstance(node, cst.Lambda):
            # a closure over the names bound here; its body is evaluated where it is called
            return [(Val.Lambda(node, tuple(sorted(state.env.items(), key=lambda kv: kv[0]))), state)]
        return [(None, state)]

    def _ev_if_exp(self, node: cst.IfExp, state: State) -> list:
        out: list = []
        for _, s in self.ev(node.test, state):
            for (a, b), s2 in self.ev_seq([node.body, node.orelse], s):
                joined = Val.join(a, b)
                if joined is None and Val.is_callable(a) and Val.is_callable(b):
                    # `(self._resume if flag else self._abort)(sched)`: either one is called
                    out.extend([(a, s2), (b, s2)])
                else:
                    out.append((joined, s2))
        return out

    def _ev_dict(self, node: cst.Dict, state: State) -> list:
        out: list = []
        keys = [el.key if isinstance(el, cst.DictElement) else None for el in node.elements]
        vals = [el.value for el in node.elements]
        for values, s in self.ev_seq([k for k in keys if k is not None] + vals, state):
            key_values, item_values = values[: len(values) - len(vals)], values[len(values) - len(vals) :]
            constants = [c for c in map(Val.constant, key_values) if c is not None]
            if len(constants) == len(key_values) == len(item_values):
                out.append((Val.Table(tuple(zip(constants, item_values, strict=True))), s))
            else:
                out.append((None, s))
        return out

    def name(self, name: str, state: State):
        if name in state.env:
            return state.env[name]
        if name == "True":
            return Val.TRUE
        if name == "False":
            return Val.FALSE
        if name == "None":
            return Val.NONE
        if name in V.EFFECTS:
            return Val.Primitive(name)  # `from ... import` of a primitive is rare; the name says it
        key = (id(self.fn), name)
        if key not in self._names:
            target = self.interp.project.resolve_call(self.fn, ("name", name))
            self._names[key] = Val.FunctionRef(*target) if target else _module_constant(self.fn.module, name)
        return self._names[key]

    def attribute(self, base, attr: str, node):
        if attr == "__dict__":
            return Val.Fields(base)
        if attr == V.SCHEDULER_RUNNING:
            return Val.RUNNING
        if attr == V.SINGLE_TYPE_MANAGERS:
            return Val.MANAGERS
        if attr == V.BLOCK_POOL:
            return Val.POOL
        if base == Val.POOL and attr in V.WHOLE_POOL_ATTRS:
            return Val.ids("*", "whole", "all", False, self.fn)
        if attr == V.REQ_TO_BLOCKS:
            return Val.BlockMap(base.groups if isinstance(base, Val.Manager) else "all")
        if attr in V.TAIL_BOUNDARY:
            return Val.Num("computed" if attr == V.NUM_COMPUTED_TOKENS else "inflight")
        if attr == V.MANAGER_BLOCK_SIZE:
            return Val.Num("bs")
        if attr == V.REQUEST_ID and Val.key_of(base) is not None:
            return Val.Rid(Val.identity(base))
        if attr in V.BLOCK_LIST_ATTRS and Val.key_of(base) is not None:
            return self.read_blocks(Val.identity(base), "all")
        if Val.is_ids(base):
            return base if attr in (V.BLOCK_ID_ATTR, "blocks") else None
        if attr in V.WHOLE_POOL_ATTRS and isinstance(node.value, (cst.Attribute, cst.Name)):
            owner = ir.called_name(node.value)
            if owner == V.BLOCK_POOL or attr in (V.CACHED_BLOCK_MAP, V.SECONDARY_HASHES):
                return Val.ids("*", "whole", "all", False, self.fn)
        if attr in V.EFFECTS or (attr == V.KV_MANAGER_FREE[1] and ir.called_name(node.value) == V.KV_MANAGER_FREE[0]):
            return Val.Primitive(attr)
        if isinstance(node.value, cst.Name) and node.value.value in ("self", "cls"):
            key = (id(self.fn), id(self.selves[-1] if self.selves else None), "self." + attr)
            if key not in self._names:
                target = self.resolve(("self", attr))
                self._names[key] = Val.FunctionRef(*target) if target else None
            return self._names[key]
        return None

    def read_blocks(self, key: str | None, groups: str) -> Val.Ids:
        freed = self._current.freed_keys() if self._current is not None else set()
        stale = key is not None and (key in freed or "*" in freed)
        return Val.ids(key or "*", "whole", groups, stale, self.fn)

    def collection(self, values) -> Val.Value:
        ids = [v for v in values if Val.is_ids(v)]
        if ids:
            value = ids[0]
            for other in ids[1:]:
                value = Val.join_ids(value, other)
            return value
        if not values:
            return Val.ids(None, "empty")
        if all(isinstance(v, Val.Running) for v in values):
            return Val.RUNNING
        return Val.Seq(tuple(values))

    def binary(self, operator, left, right):
        if isinstance(left, Val.Ids) and isinstance(right, Val.Ids):
            return Val.difference(left, right) if isinstance(operator, cst.Subtract) else Val.join_ids(left, right)
        lk, rk = Val.num_kind(left), Val.num_kind(right)
        if isinstance(operator, cst.Subtract):
            if isinstance(left, Val.Length) and isinstance(left.of, Val.Ids) and rk in ("cblk", "early", "kblk"):
                # `len(blocks) - first`: how many blocks from `first` to the end
                return Val.Num(f"count-{rk}")
            if lk == "computed" and rk == "inflight":
                return Val.Num("confirmed")
            if lk == "confirmed" and rk == "rem":
                return Val.Num("confirmed")
            if lk == "cblk" and rk not in (None, "zero"):
                return Val.Num("early")
            if lk == "confirmed" and rk not in (None, "zero", "rem"):
                return Val.Num("early-token")
            if rk == "zero":
                return left
        if isinstance(operator, cst.Modulo) and lk == "confirmed":
            return Val.Num("rem")
        if isinstance(operator, cst.FloorDivide):
            if lk == "confirmed":
                return Val.Num("cblk")
            if lk == "computed":
                return Val.Num("kblk")
            if lk == "early-token":
                return Val.Num("early")
        if isinstance(operator, cst.Multiply) and "cblk" in (lk, rk):
            return Val.Num("confirmed")
        if isinstance(operator, cst.Multiply) and "kblk" in (lk, rk):
            return Val.Num("computed")
        if isinstance(operator, cst.Add) and rk == "zero":
            return left
        if lk is not None or rk is not None:
            return Val.OTHER
        return None

    def subscript(self, node: cst.Subscript, state: State) -> list:
        out = []
        element = node.slice[0].slice if len(node.slice) == 1 else None
        for base, s in self.ev(node.value, state):
            self._current = s
            if isinstance(element, cst.Slice):
                parts = [element.lower, element.upper, element.step]
                for (lower, upper, _), s2 in self.ev_seq([p or cst.Name("None") for p in parts], s):
                    out.append((self._slice(base, element.lower, lower, upper), s2))
                continue
            if element is None:
                out.append((base if Val.is_ids(base) else None, s))
                continue
            index_expr = cast(cst.Index, element).value  # the one other BaseSlice
            for index, s2 in self.ev(index_expr, s):
                self._current = s2
                out.append((self._index(base, index_expr, index), s2))
        return out

    def _slice(self, base, lower_node, lower, upper=None):
        if isinstance(base, Val.Running):
            return Val.RUNNING
        if not isinstance(base, Val.Ids) or base.start != "whole":
            return base if isinstance(base, Val.Ids) else None
        ends = {
            "zero": "empty",
            "cblk": "head",  # `blocks[:boundary]`: ends where the dirty tail begins
            "early": "ehead",  # `blocks[:boundary - 1]`: ends before it
            "kblk": "lhead",  # ends inside the dirty tail
        }
        end = ends.get(Val.num_kind(upper) or "")
        if end is not None:
            return Val.with_start(base, end)
        if lower_node is None:
            return base
        return Val.with_start(base, Val.start_from_index(Val.num_kind(lower)))

    def _index(self, base: Val.Value, index_node, index: Val.Value) -> Val.Value:
        if base is None or (isinstance(base, Val.Ids) and isinstance(index, Val.Ids)):
            return index if isinstance(index, Val.Ids) else None  # `pool.blocks[block_id]`: its block
        if isinstance(base, Val.BlockMap):
            return self.read_blocks(Val.key_of(index), base.groups)
        if isinstance(base, Val.Managers):
            return Val.Manager("first" if isinstance(index_node, cst.Integer) else "all")
        if isinstance(base, Val.Running):
            return Val.Req(f"at:{id(index_node)}")
        if isinstance(base, Val.Table):
            constant = Val.constant(index)
            if constant is not None:
                return dict(base.items).get(constant)
            # `ops[computed](...)`, `{True: self._resume, False: self._abort}[bool(flag)](...)`: a
            # key the walk cannot compute picks one of the table's callables (calling a
            # non-callable entry such as `"skip": None` raises); each is a path, as `if flag:` forks
            options: list[Val.Value] = []
            for _, value in base.items:
                if Val.is_callable(value) and value not in options:
                    options.append(value)
            return options[0] if len(options) == 1 else Val.Either(tuple(options)) if options else None
        if isinstance(base, Val.Ids):
            if isinstance(index, Val.Index):
                return Val.with_start(base, index.start) if base.start == "whole" else base
            if isinstance(index_node, cst.Integer):
                return dataclasses.replace(base, groups="first") if index_node.value == "0" else base
            return Val.with_start(base, "unknown")
        return index if isinstance(index, Val.Ids) else None  # `pool.blocks[block_id]` for each id

    def comprehension(self, node, state: State) -> list:
        self.loops.append([])
        env_before = state.env
        clauses = []
        clause = node.for_in
        while clause is not None:
            clauses.append(clause)
            clause = clause.inner_for_in
        states = [state]
        dropped = False
        one_item = len(clauses) == 1  # over a literal `[req]`: the list of one element
        for clause in clauses:
            nxt = []
            for iterable, s in self.ev_all(clause.iter, states):
                one_item = one_item and isinstance(iterable, Val.Seq) and len(iterable.items) == 1
                self._current = s
                element = self.element(iterable, clause, clause.target, [c.test for c in clause.ifs])
                s = self.assign(clause.target, element, s)
                for condition in clause.ifs:
                    if self._drops_by_length(condition.test, s):
                        dropped = True
                    s = self.ev(condition.test, s)[-1][1]
                nxt.append(s)
            states = nxt
        out = []
        if isinstance(node, cst.DictComp):
            results = [((v,), s) for v, s in self.ev_all(node.value, states)]
        else:
            results = [((v,), s) for v, s in self.ev_all(node.elt, states)]
        born = self.loops.pop()
        for (value,), s in results:
            result: Val.Value = None
            if isinstance(value, Val.Ids):
                result = Val.with_key(value, "*") if value.key in born else value
                if dropped and result.start in ("tail", "unknown", "whole", "early"):
                    result = Val.with_start(result, "dropped")
            elif isinstance(value, Val.Req):
                result = Val.RUNNING
            elif isinstance(value, Val.Seq) and born and Val.mentions(value, born):
                # `[(r, r.num_computed_tokens - ...) for r in reqs]`: each element is this
                # tuple, made for one request of the loop
                result = Val.Each(value, tuple(born))
            elif isinstance(value, Val.Seq) and one_item:
                result = Val.Seq((value,))
            s = self._promote([s], born)[0]
            out.append((result, s.replace(env=env_before)))
        return out

    def _drops_by_length(self, test, state: State) -> bool:
        """`b.block_id < len(blocks)` with `blocks` one request's block list: a block id is an
        index into the pool, not into the request's list, so the filter drops ids (the
        tail's among them). Against the pool's length it drops nothing (a defensive check)."""
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            return self._drops_by_length(test.left, state) or self._drops_by_length(test.right, state)
        if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
            return False
        left, (pair,) = test.left, test.comparisons
        if not isinstance(pair.operator, (cst.LessThan, cst.LessThanEqual)):
            return False
        right = pair.comparator
        if not (isinstance(left, cst.Attribute) and left.attr.value == V.BLOCK_ID_ATTR):
            return False
        if not (isinstance(right, cst.Call) and ir.called_name(right.func) == "len" and len(right.args) == 1):
            return False
        blocks = self.ev_pure(right.args[0].value, state)
        return isinstance(blocks, Val.Ids) and blocks.key not in (None, "*")

    def call(self, node: cst.Call, state: State) -> list:
        func = node.func
        dotted = ir.dotted_name(func) if isinstance(func, cst.Attribute) else None
        if dotted is not None and dotted in state.env:  # a bound method kept in an attribute
            out = []
            for values, s in self.ev_seq([a.value for a in node.args], state):
                self._current = s
                args, keywords = _split(node.args, values)
                out.extend(self.call_value(state.env[dotted], args, keywords, node, s))
            return out
        # Method calls on values this walk tracks (collections, req_to_blocks, the queue).
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            out = []
            for receiver, s in self.ev(func.value, state):
                arg_nodes = [a.value for a in node.args]
                for values, s2 in self.ev_seq(arg_nodes, s):
                    self._current = s2
                    args, keywords = _split(node.args, values)
                    out.extend(self.method_call(func, method, receiver, args, keywords, node, s2))
            return out
        if isinstance(func, cst.Name) and func.value not in state.env:
            builtin = func.value
            if builtin in _BUILTINS or builtin in _PASSTHROUGH:
                out = []
                for values, s in self.ev_seq([a.value for a in node.args], state):
                    self._current = s
                    args, keywords = _split(node.args, values)
                    out.append(self.builtin(builtin, args, keywords, node, s))
                return out
        out = []
        for callee, s in self.ev(func, state):
            for values, s2 in self.ev_seq([a.value for a in node.args], s):
                self._current = s2
                args, keywords = _split(node.args, values)
                out.extend(self.call_value(callee, args, keywords, node, s2))
        return out

    def method_call(self, func: cst.Attribute, method: str, receiver, args, keywords, node, state: State) -> list:
        if method in _REQUEUE and args and (ir.dotted_name(func.value) or "").rsplit(".", 1)[-1] == "waiting":
            state = self.rewind(args[-1], node, state, "requeue")  # put back to wait, blocks kept
        if isinstance(receiver, Val.Running):
            if method == "pop":
                return [(self.new_request(node), state)]
            if method == "copy":
                return [(Val.RUNNING, state)]
            return [(None, state)]
        if (
            isinstance(receiver, Val.Ids)
            and method == "pop"
            and ir.called_name(func.value) in ("cached_block_hash_to_block", "cached_block_hashes_by_block")
        ):
            return [(None, self.evict(args[1] if len(args) > 1 else args[0] if args else None, node, state))]
        if isinstance(receiver, Val.Ids) and method == "reset_hash":
            return [(None, self.evict(receiver, node, state))]
        if isinstance(receiver, Val.Ids):
            if method in _ADDING:
                name = ir.dotted_name(func.value)
                added = [a for a in args if isinstance(a, Val.Ids)]
                if state.env.get("<dropping>") is not None:
                    added = [Val.with_start(a, "dropped") for a in added]
                value = receiver
                for a in added:
                    value = Val.join_ids(value, a)
                if name is not None and added and method != "union":
                    state = state.bind(name, value)
                return [(None if method != "union" else value, state)]
            # KVCacheBlocks.get_block_ids(): the ids of the same blocks, per group
            same = method in ("copy", "get", "pop", "values", "items") or method in V.BLOCK_LIST_CALLS
            return [(receiver if same else None, state)]
        if isinstance(receiver, Val.BlockMap):
            if method in ("get", "pop", "setdefault", "__getitem__"):
                key = Val.key_of(args[0]) if args else None
                return [(self.read_blocks(key, receiver.groups), state)]
            if method in ("values", "items"):
                return [(self.read_blocks("*", receiver.groups), state)]
            return [(None, state)]
        if isinstance(receiver, Val.Table) and method == "get" and args and isinstance(args[0], Val.Str):
            return [(dict(receiver.items).get(args[0].text), state)]
        if method in V.BLOCK_LIST_CALLS:
            key = Val.key_of(args[0]) if args else None
            return [(self.read_blocks(key, "all"), state)]
        if (
            method in V.EFFECTS
            or (method == V.KV_MANAGER_FREE[1] and ir.called_name(func.value) == V.KV_MANAGER_FREE[0])
        ) and not isinstance(receiver, (Val.FunctionRef, Val.Partial)):
            return [self.primitive(method, args, keywords, node, state, ir.called_name(func.value) or "")]
        dotted = ir.dotted_name(func)
        if dotted in ("functools.partial", "operator.methodcaller"):
            return [self.builtin(method, args, keywords, node, state)]
        if dotted in _COPIES:
            key = Val.key_of(args[0]) if args else None
            # another object (resets on it miss the request) with the same request id and
            # counters: the blocks read through it are the request's
            return [(Val.Req(f"copy:{id(node)}", key) if key is not None else None, state)]
        if isinstance(receiver, Val.Fields) and method == "update":
            return [(Val.NONE, self.write_fields(receiver.of, args, keywords, state))]
        if isinstance(receiver, Val.Table) and method == "items":
            return [(Val.TableItems(receiver.items), state)]
        callee: Val.Value = None
        ref = ("self", method) if ir.is_own_class(func.value) else ir.callee_ref(func)
        target = self.resolve(ref) if ref else None
        if target is not None:
            callee = Val.FunctionRef(*target)
        if callee is None and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls"):
            callee = self._class_attribute(method, state)
        if callee is None:
            return self.unresolved(node, state, args)
        return self.call_value(callee, args, keywords, node, state)

    def _class_attribute(self, name: str, state: State):
        """`self.name` where the class body binds `name = <lambda>` (or `staticmethod(lambda
        ...)`): the lambda, evaluated with no names bound; None otherwise."""
        cls = self.selves[-1] if self.selves else self.fn.class_info
        tree = _module_tree(cls.module) if cls is not None else None
        if tree is None:
            return None
        for top in tree.body:
            if not (isinstance(top, cst.ClassDef) and top.name.value == cls.name):
                continue
            for line in top.body.body:
                if not isinstance(line, cst.SimpleStatementLine):
                    continue
                for small in line.body:
                    if (
                        isinstance(small, cst.Assign)
                        and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name)
                        and small.targets[0].target.value == name
                    ):
                        value = small.value
                        bound = True  # a plain function attribute is bound: `self` comes first
                        if isinstance(value, cst.Call) and ir.called_name(value.func) == "staticmethod" and value.args:
                            value, bound = value.args[0].value, False
                        if isinstance(value, cst.Lambda):
                            if tree is not cls.module.module:
                                self._foreign.add(id(value))
                            lam = Val.Lambda(value, ())
                            return Val.Partial(lam, (None,), ()) if bound else lam
        return None

    def builtin(self, name: str, args, keywords, node, state: State):
        if name == "setattr" and len(args) >= 3:
            named = args[1]
            fields = (
                (named.text,) if isinstance(named, Val.Str) else named.texts if isinstance(named, Val.Strs) else None
            )
            if fields is not None:
                items = tuple((f, args[2]) for f in fields)
                return Val.NONE, self.write_fields(args[0], [Val.Table(items)], {}, state)
            return Val.NONE, self.write_fields(args[0], [None], {}, state)  # a field the walk cannot name
        if name == "vars" and len(args) == 1:
            return Val.Fields(args[0]), state
        if name == "methodcaller":
            if args and isinstance(args[0], Val.Str):
                return Val.MethodCaller(args[0].text, tuple(args[1:]), tuple(sorted(keywords.items()))), state
            return None, state
        if name in ("max", "min"):
            kinds = [a.kind for a in args if isinstance(a, Val.Num)]
            if "early" in kinds:
                return Val.Num("early"), state
            if name == "max" and len(kinds) == len(args) and set(kinds) - {"zero"} and len(set(kinds) - {"zero"}) == 1:
                return Val.Num((set(kinds) - {"zero"}).pop()), state
            return (Val.OTHER if kinds else None), state
        if name == "getattr" and len(args) >= 2 and isinstance(args[1], Val.Str):
            attr = args[1].text
            attr_node = cst.Attribute(value=node.args[0].value, attr=cst.Name(attr)) if attr.isidentifier() else None
            return (self.attribute(args[0], attr, attr_node) if attr_node is not None else None), state
        if name == "len":
            return (Val.Length(args[0]) if args and args[0] is not None else Val.OTHER), state
        if name == "enumerate":
            return (Val.Enumerated(args[0]) if args else None), state
        if name == "range":
            if len(args) == 1:
                return Val.Range("whole", args[0]), state
            if len(args) >= 2:
                return Val.Range(Val.start_from_index(Val.num_kind(args[0])), args[1]), state
            return None, state
        if name == "partial":
            if args:
                return Val.Partial(args[0], tuple(args[1:]), tuple(sorted(keywords.items()))), state
            return None, state
        if name == "next" and args and isinstance(args[0], Val.Running):
            return self.new_request(node), state
        if name in _PASSTHROUGH:
            if not args:
                return (Val.ids(None, "empty") if name in ("set", "list", "tuple", "frozenset") else None), state
            value = args[0]
            return (value if isinstance(value, (Val.Ids, Val.Running)) else None), state
        return None, state

    def call_value(self, callee, args, keywords, node, state: State) -> list:
        if callee is None:
            return self.unresolved(node, state, args)
        if isinstance(callee, Val.Primitive):
            return [self.primitive(callee.name, args, keywords, node, state)]
        if isinstance(callee, Val.Partial):
            merged = dict(callee.keywords)
            merged.update(keywords)
            return self.call_value(callee.callee, list(callee.args) + list(args), merged, node, state)
        if isinstance(callee, Val.FunctionRef):
            return self.inline(callee.fn, callee.via_instance, args, keywords, node, state)
        if isinstance(callee, Val.Lambda):
            return self.call_lambda(callee, args, keywords, node, state)
        if isinstance(callee, Val.MethodCaller) and callee.name in V.EFFECTS and args:
            # operator.methodcaller("_preempt_request", req, ts)(scheduler): the method of the receiver
            return [self.primitive(callee.name, list(callee.args), dict(callee.keywords), node, state)]
        if isinstance(callee, Val.Either):  # a callable picked at run time among these: any of them
            out: list = []
            for option in callee.options:
                out.extend(self.call_value(option, args, keywords, node, state))
            return out
        return self.unresolved(node, state, args)

    def call_lambda(self, callee: Val.Lambda, args, keywords, node, state: State) -> list:
        """A lambda called: its body in its closure's names plus its parameters."""
        lam = callee.node
        if id(lam) in self._foreign and self._relocate is None:
            self._relocate, self._relocate_depth = node, len(self.stack)
            try:
                return self.call_lambda(callee, args, keywords, node, state)
            finally:
                self._relocate = None
        env = dict(callee.closure)
        params = lam.params
        for index, param in enumerate(params.params):
            name = param.name.value
            env[name] = args[index] if index < len(args) else keywords.get(name)
        for param in params.kwonly_params:
            env[param.name.value] = keywords.get(param.name.value)
        out = []
        for value, after in self.ev(lam.body, state.replace(env=env)):
            out.append((value, after.replace(env=state.env)))
        return out

    def resolve(self, ref):
        """The project function a call reaches; `self.name` against the class `self` is an
        instance of (the most-derived override), not only the class that defines the caller."""
        cls = self.selves[-1] if self.selves else None
        if ref[0] == "self" and cls is not None and cls is not self.fn.class_info:
            found = self.interp.project.method(cls, ref[1])
            return (found, True) if found is not None else None
        return self.interp.project.resolve_call(self.fn, ref)

    def _self_class_of(self, fn, via_instance: bool):
        """`self` in a called method: the caller's instance when the method is one of its
        class's (inherited or its own), else an instance of the method's class."""
        current = self.selves[-1] if self.selves else None
        own = fn.class_info
        if via_instance and own is not None and current is not None and self.interp.fault_paths.inherits(current, own):
            return current
        return own

    def unresolved(self, node, state: State, args=()) -> list:
        if isinstance(node, cst.Call):
            ref = ir.callee_ref(node.func)
            if ref is not None and ref[0] == "super":
                base = self.interp.installed_vllm_method(self.fn, ref[1])
                if base is not None:
                    return (
                        self.inline(base, True, [], {}, node, state)
                        if not node.args
                        else self._inline_args(base, node, state)
                    )
                shipped = self.interp.shipped_vllm_method(
                    self.fn, ref[1], self.gen, self.selves[-1] if self.selves else None
                )
                if shipped is not None:
                    return self._apply_shipped(ref[1], shipped, node, state)
                self.interp.note(
                    f"{self.fn.qualname}: `{ir.code_of(node.func)}()` is neither in the project nor found in vLLM's source or ftlint's vLLM summaries; its effect is not followed"
                )
            else:  # a named callee outside the project, or one computed at run time
                self.interp.note(f"{self.fn.qualname}: `{ir.code_of(node.func)}()` is not resolved; taken as no effect")
        passed = {Val.key_of(a) for a in args} - {None}
        if passed:  # a request given to a call the walk cannot follow: its counters may be set there
            state = state.replace(at_zero=frozenset(z for z in state.at_zero if z[0] not in passed))
        return [(None, self._may_evict(node, state, args))]

    def _may_evict(self, node, state: State, args) -> State:
        """A call the walk cannot follow that is given block ids may evict them: their
        tail counts as covered (an unknown value never produces a finding)."""
        given = [a for a in args if isinstance(a, Val.Ids) and not a.stale and a.start != "empty"]
        if not given:
            return state
        self.interp.note(
            f"{self.fn.qualname}: `{ir.code_of(node)}` may evict the block ids it is given; taken as covering them"
        )
        return state.replace(evicted=state.evicted | {(a.key or "*", Val.quality(a)) for a in given})

    def _apply_shipped(self, name: str, paths: list, node, state: State) -> list:
        """A shipped summary of vLLM's `name` (vllm_summaries.py) applied as `inline` would
        leave the walk: its effects located in vLLM's file, reached through this call."""
        site = Site(cast("Function", _VllmMethod(name)), node, self.site(node))
        out = []
        for path in paths:
            out.append(
                (
                    None,
                    state.replace(
                        freed=state.freed | {(key, site) for key in path["freed"]},
                        evicted=state.evicted | {tuple(e) for e in path["evicted"]},
                        zeroed=state.zeroed | {tuple(z) for z in path["zeroed"]},
                        pending=state.pending | {(key, site, frozenset(missing)) for key, missing in path["pending"]},
                    ),
                )
            )
        return out or [(None, state)]

    def _inline_args(self, fn, node, state: State) -> list:
        out = []
        for values, s in self.ev_seq([a.value for a in node.args], state):
            args, keywords = _split(node.args, values)
            out.extend(self.inline(fn, True, args, keywords, node, s))
        return out

    def _frame_env(self, fn, via_instance: bool, args, keywords) -> dict:
        """The names of a called project function: its parameters, as the call fills them."""
        params = fn.caller_params(via_instance)
        env = {}
        defaults = _defaults(fn)
        for index, param in enumerate(params):
            env[param] = args[index] if index < len(args) else keywords.get(param, defaults.get(param))
        env.update(_star_params(fn, params, args, keywords))
        if fn.is_method and via_instance and fn.params:
            env[fn.params[0]] = None
        return env

    def inline(self, fn, via_instance: bool, args, keywords, node, state: State) -> list:
        """A project function called in this state: its paths, in the caller's terms."""
        if any(frame is fn for frame, _ in self.stack):
            self.interp.note(f"{self.fn.qualname}: `{fn.qualname}` is recursive; taken as no effect")
            return [(None, state)]
        if len(self.stack) >= MAX_CALL_DEPTH:
            # A helper chain deeper than the walk follows: the callee's flat summary
            # (faultpath.Summary: may it evict, may it free), evictions first.
            self.interp.note(
                f"{self.fn.qualname}: `{fn.qualname}` is {MAX_CALL_DEPTH} calls deep; summarised, not walked"
            )
            summary = self.interp.fault_paths.summary(fn)
            if summary is not None and summary.may_evict:
                state = state.replace(evicted=state.evicted | {("*", "ok")})
            if summary is not None and summary.may_free:
                state = self.free("*", node, state)
            return [(None, state)]
        if self.is_handler:
            self.interp._reached.add(fn)
        env = self._frame_env(fn, via_instance, args, keywords)
        self.stack.append((fn, self.site(node)))
        self.selves.append(self._self_class_of(fn, via_instance))
        try:
            flow = self.suite(fn.node.body, [state.replace(env=env)])
        finally:
            self.selves.pop()
            self.stack.pop()
        out: list = []
        for s in flow.normal:  # a generator's call gives what it yields (its ids)
            out.append((s.env.get("<yield>", Val.NONE), s.replace(env=state.env)))
        for s in flow.ret:
            out.append((s.env.get("<yield>", s.env.get("<return>")), s.replace(env=state.env)))
        if not out:  # every path raises: the caller's except clauses see the entry state
            out.append((None, state))
        if len(out) > MAX_STATES:
            value = out[0][0]
            for v, _ in out[1:]:
                value = Val.join(value, v)
            out = [(value, _merge([s for _, s in out]))]
        return out


#: a request put back in the waiting queue by hand (`scheduler.waiting.prepend_request(req)`)
_REQUEUE = frozenset({"add_request", "prepend_request", "append", "appendleft", "insert"})


def _split(args, values) -> tuple[list, dict]:
    """(positional values, keyword values); `**{"k": v}` and `*(a, b)` of known literals are
    spread, `*parts` of block ids gives the ids themselves (`set().union(*per_group)`); an
    unknown `**mapping` puts UNKNOWN_KEYWORDS in the keywords (any keyword may be in it),
    another unknown `*iterable` gives one unknown value."""
    positional: list = []
    keywords: dict = {}
    for arg, value in zip(args, values, strict=False):
        if arg.keyword is not None:
            keywords[arg.keyword.value] = value
        elif arg.star == "":
            positional.append(value)
        elif arg.star == "**" and isinstance(value, Val.Table):
            keywords.update(value.items)
        elif arg.star == "**":
            keywords[UNKNOWN_KEYWORDS] = None
        elif isinstance(value, Val.Seq):
            positional.extend(value.items)
        elif Val.is_ids(value):
            positional.append(value)
        else:
            positional.append(None)
    return positional, keywords


def _star_params(fn, params, args, keywords) -> dict:
    """`*rest` and `**fields` of a called function: the extra positional values (a tuple) and
    the extra keywords (a dict), unknown when the caller passed an unknown `**mapping`."""
    out: dict = {}
    node_params = fn.node.params
    star = node_params.star_arg
    if isinstance(star, cst.Param):
        out[star.name.value] = Val.Seq(tuple(args[len(params) :]))
    if node_params.star_kwarg is not None:
        extra = tuple((k, v) for k, v in keywords.items() if k not in params)
        out[node_params.star_kwarg.name.value] = None if UNKNOWN_KEYWORDS in keywords else Val.Table(extra)
    return out


def _not_at_zero(state: State, key: str | None, field_name: str | None) -> State:
    """`field_name` (None: every counter) of request `key` (None: of any request) is no
    longer known to be 0."""
    kept = frozenset(
        z for z in state.at_zero if (key is not None and z[0] != key) or (field_name is not None and z[1] != field_name)
    )
    return state if kept == state.at_zero else state.replace(at_zero=kept)


class _CounterReads(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: set[str] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in V.ALL_COUNTER_FIELDS:
            self.found.add(node.attr.value)


def _counters_read(test) -> set[str]:
    """The counter fields an expression reads (`req.num_output_placeholders > 0`)."""
    reads = _CounterReads()
    test.visit(reads)
    return reads.found


def _decrements(target, value) -> bool:
    """`req.counter = req.counter - n` with n not a literal 0."""
    return (
        isinstance(target, cst.Attribute)
        and target.attr.value in V.ALL_COUNTER_FIELDS
        and isinstance(value, cst.BinaryOperation)
        and isinstance(value.operator, cst.Subtract)
        and ir.code_of(value.left) == ir.code_of(target)
        and not (isinstance(value.right, cst.Integer) and value.right.evaluated_value == 0)
    )


def _unbind(flow: Flow, name: str) -> Flow:
    def drop(states: list) -> list:
        return [s.replace(env={k: v for k, v in s.env.items() if k != name}) if name in s.env else s for s in states]

    out = Flow(drop(flow.normal), drop(flow.brk), drop(flow.cont), drop(flow.ret), drop(flow.exc))
    return out


@dataclass(frozen=True)
class _Split:
    """A `@contextmanager` function cut at its `yield`: what runs on entry, the value it
    yields, what runs on exit."""

    fn: Function
    via_instance: bool
    before: list
    yielded: cst.BaseExpression | None
    after: list


@dataclass(frozen=True)
class _Body:
    """Statements run as a suite."""

    body: list


def _yield_of(statement) -> tuple[bool, cst.BaseExpression | None]:
    """(whether the statement is a bare `yield` / `yield x` / `name = yield x`, its value)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False, None
    small = statement.body[0]
    value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
    if isinstance(value, cst.Yield) and not isinstance(value.value, cst.From):
        return True, value.value
    return False, None


def _yield_split(body: list) -> tuple[list, cst.BaseExpression | None, list] | None:
    """`pre; yield x; post` or `pre; try: a; yield x; b finally: f; post` (no except
    clauses, no other yield): (pre [+ a], x, [b +] f + post); None for another shape."""
    for index, statement in enumerate(body):
        found, value = _yield_of(statement)
        if found:
            return body[:index], value, body[index + 1 :]
        if isinstance(statement, cst.Try) and not statement.handlers and statement.orelse is None:
            inner = list(statement.body.body)
            for at, line in enumerate(inner):
                found, value = _yield_of(line)
                if found:
                    final = list(statement.finalbody.body.body) if statement.finalbody is not None else []
                    return body[:index] + inner[:at], value, inner[at + 1 :] + final + body[index + 1 :]
    return None


def _without(state: State, name: str) -> State:
    if name not in state.env:
        return state
    return state.replace(env={n: v for n, v in state.env.items() if n != name})


def _mark(state: State, gate: str | None, side: bool) -> State:
    if gate is None:
        return state
    return state.replace(evicted=state.evicted | {("#gate", f"{gate}:{side}")})


def _gates(state: State) -> frozenset:
    return frozenset(q for k, q in state.evicted if k == "#gate")


def _breaks_always(body) -> bool:
    """A loop body whose own statement list ends the loop with `break` on every pass."""
    statements = getattr(body, "body", ())
    return any(
        isinstance(line, cst.SimpleStatementLine) and any(isinstance(small, cst.Break) for small in line.body)
        for line in statements
    )


def _target_names(target) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [el.value.value for el in target.elements if isinstance(el.value, cst.Name)]
    return []


class _Comparisons(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list = []

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self.found.append(node)

    def visit_FunctionDef(self, node) -> bool:
        return False


def _comparisons(node) -> list:
    visitor = _Comparisons()
    node.visit(visitor)
    return visitor.found


def _request_node(node) -> cst.BaseExpression | None:
    """The request argument of a preempt call, however the call is spelled:
    `functools.partial(s._preempt_request, req)(ts)` (the partial's arguments come first),
    `operator.methodcaller("_preempt_request", req, ts)(s)` (the methodcaller's), and
    `s._preempt_request(**{"request": req, ...})` (a literal dict's item)."""
    if not isinstance(node, cst.Call):
        return None
    args = list(node.args)
    if isinstance(node.func, cst.Call):
        maker = ir.called_name(node.func.func)
        if maker == "partial":
            args = [*node.func.args[1:], *node.args]
        elif maker == "methodcaller":
            args = list(node.func.args[1:])
    spread = []
    for arg in args:
        if arg.star == "**" and isinstance(arg.value, cst.Dict):
            for element in arg.value.elements:
                if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString):
                    name = element.key.evaluated_value
                    if isinstance(name, str) and name.isidentifier():
                        spread.append(cst.Arg(value=element.value, keyword=cst.Name(name)))
        else:
            spread.append(arg)
    found = ir.request_argument(cst.Call(func=node.func, args=spread))
    return found.value if found is not None else None


def _fill_accumulators(entry: list, exits: list) -> list:
    """After a loop over blocks or groups (walked as one iteration), a set of block ids that
    was empty on entry and that some exit holds ids in: an exit on which the iteration
    skipped the add (`if i < first: continue`) does not leave it empty at runtime, since
    the set holds what every iteration added. Its empty value takes the others' join
    (else evicting it would count as evicting everything, as `evict_blocks(set())` does)."""
    empty = {
        name
        for name, value in (entry[0].env.items() if entry else ())
        if Val.is_empty_ids(value) and all(Val.is_empty_ids(s.env.get(name)) for s in entry)
    }
    filled: dict[str, Val.Ids] = {}
    for state in exits:
        for name in empty:
            value = state.env.get(name)
            if isinstance(value, Val.Ids) and not Val.is_empty_ids(value):
                filled[name] = Val.join_ids(filled[name], value) if name in filled else value
    if not filled:
        return exits
    out = []
    for state in exits:
        stays = [n for n in filled if Val.is_empty_ids(state.env.get(n))]
        out.append(state.replace(env={**state.env, **{n: filled[n] for n in stays}}) if stays else state)
    return out


_LITERALS: dict[str, Val.Value] = {"True": Val.TRUE, "False": Val.FALSE, "None": Val.NONE}


def _literal(node) -> Val.Value:
    if isinstance(node, cst.Name):
        return _LITERALS.get(node.value)
    if isinstance(node, cst.Integer):
        return Val.ZERO if node.value == "0" else Val.OTHER
    if isinstance(node, cst.SimpleString):
        try:
            text = node.evaluated_value
        except Exception:  # noqa: BLE001
            return None
        return Val.Str(text) if isinstance(text, str) else None
    if isinstance(node, (cst.Tuple, cst.List)):
        items = tuple(_literal(el.value) for el in node.elements)
        return Val.Seq(items) if all(items) else None
    return None


def _defaults(fn) -> dict:
    """Literal defaults of a function's parameters (`evict=False`)."""
    out = {}
    params = fn.node.params
    for param in (*params.params, *params.kwonly_params):
        if param.default is not None:
            value = _literal(param.default)
            if value is not None:
                out[param.name.value] = value
    return out


_CONSTANTS: dict = {}
_TREES: dict = {}


def _module_tree(info) -> cst.Module | None:
    """The module's whole tree: its own, or its text parsed once (an outlined module keeps
    only its functions' trees; asked for the class bodies of unresolved `self.x()` only)."""
    if info.module is not None:
        return cast(cst.Module, info.module)
    found = _TREES.get(id(info))
    if found is None or found[0] is not info:
        try:
            tree = cst.parse_module(info.text)
        except Exception:  # noqa: BLE001 - a module LibCST rejects has no class body to read
            tree = None
        found = _TREES[id(info)] = (info, tree)
    return found[1]


def _module_constant(info, name: str):
    """A module-level `NAME = <literal>` (a tuple of counter names, say), read from the
    module's text with Python's parser (the module may be outlined)."""
    key = info.path  # by path and text: a ModuleInfo made again from the same text reuses it
    # an outlined module: its frame (outline.Outline.frame: the functions cut out), so an
    # edit inside a function of a big file does not parse the file again (issue 24)
    text = info.outline.frame() if info.outline is not None else info.text
    table = _CONSTANTS.get(key)
    if table is None or table[0] != text:
        import ast

        found: dict[str, Val.Value] = {}
        tree = None
        for source in (text, info.text) if text is not info.text else (text,):
            try:
                tree = ast.parse(source)
                break
            except (SyntaxError, ValueError):
                continue
        for statement in tree.body if tree is not None else ():
            if (
                isinstance(statement, ast.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
            ):
                try:
                    literal = ast.literal_eval(statement.value)
                except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                    continue
                if isinstance(literal, (tuple, list)) and literal and all(isinstance(x, str) for x in literal):
                    found[statement.targets[0].id] = Val.Seq(tuple(Val.Str(x) for x in literal))
                elif isinstance(literal, str):
                    found[statement.targets[0].id] = Val.Str(literal)
        table = _CONSTANTS[key] = (text, found)
    return table[1].get(name)


def _may_cover(evicted: str, freed: str) -> bool:
    """Whether an eviction for request key `evicted` may be for the requests freed under
    `freed`: the same request, every request, or one the walk cannot tell apart (a
    parameter, an item of a queue it cannot see into). One known other request
    (`running[0]`, another loop's request) or part of them does not count."""
    if evicted in (freed, "*"):
        return True
    if evicted == "partial" or evicted.startswith("at:"):
        return False
    if evicted.startswith(("q:", "p:")):
        return True
    return freed == "*" and evicted.startswith("it:")  # inside a per-request loop
