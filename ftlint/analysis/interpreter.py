"""The path walk: every path through a fault-path function, helpers inlined.

A *state* (walk/state.py) is one path's abstract store (variables -> values.py values) plus
what the path did to vLLM's model: which requests' dirty tails were evicted (and how
well), which requests were freed (and where), which preempted requests still hold
counters, which counters were zeroed before a preempt. Statements map sets of
states to sets of states (branches fork, joins keep them apart up to MAX_STATES);
calls of project helpers are interpreted in the caller's state, so a helper's
effect is per path. vLLM primitives act by their effect (vocabulary.EFFECTS,
per API generation).

The walk is built in layers, one module each under walk/: what a walk holds and how it
records facts (base), vLLM's primitives (effects), expressions (expressions), calls and
helpers (calls), statements (control); this module runs it from each entry function.

Facts (facts.py: neutral, typed, naming no rule) are recorded as the walk meets them
and kept per function; the rules read them with `Interpreter.facts(fn, Kind)`. Where the walk cannot decide
(an unresolved callee, a recursion, a too deep helper chain) it does not report, and
records a note (`Interpreter.notes`).

The walk recurses only along nested statements and expressions and along the helper
chain, which is cut at MAX_CALL_DEPTH; `elif` chains, statement lists and loops are
iterated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar, cast

import libcst as cst

from ftlint.analysis import generation, vllm_summaries
from ftlint.analysis import values as Val
from ftlint.analysis.facts import PathFact
from ftlint.analysis.walk.base import Scope
from ftlint.analysis.walk.control import ControlFlow
from ftlint.analysis.walk.state import Abandon, State
from ftlint.core import vocabulary as V
from ftlint.syntax import ir

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from ftlint.analysis.steps import Branch
    from ftlint.index.project import ClassInfo, Function, ModuleInfo, Project

F = TypeVar("F", bound=PathFact)


class Handlers(Scope, Protocol):
    """The fault-path scope, as the interpreter asks it (faultpath.FaultPaths): what to walk."""

    project: Project
    handlers: list[Function]
    handler_set: set[Function]
    inherited_handlers: list[tuple[Function, ClassInfo]]
    step_guards: list[tuple[Function, Branch]]
    whole_modules: set[ModuleInfo]
    vllm_source: Path | None


class Interpreter:
    """The facts of every path through the fault handlers of one run (one FaultPaths)."""

    def __init__(self, fault_paths: Handlers, generation: V.Generation | None) -> None:
        self.fault_paths = fault_paths
        self.project = fault_paths.project
        self.fixed_generation = generation  # from the configuration or the project's Request class
        self._fallback: V.Generation | None = None
        self.notes: list[str] = []
        self._done: set[tuple[Function, object]] = set()  # (Function, handler class or None) walked
        self._handlers_run: tuple[int, int, int] | None = None  # sizes of the handler sets last walked
        self._by_fn: dict[
            int, dict[type[PathFact], dict[int, PathFact]]
        ] = {}  # id(Function) -> {fact type: {id(node): PathFact}}
        self._drops: dict[int, bool] = {}  # id(preempt node) -> drops a frame on some handler path
        self.reached_fns: set[Function] = set()  # Functions a handler walk ran (helpers it inlined)
        #: whether a project function of a name may evict, whether any may (calls.Calls._evicting_method)
        self.evicting_names: dict[tuple[str, int], bool] = {}
        #: the entry functions to walk (None: all): the language server's lint of one unit of
        #: a file needs only the walks that may reach it (lint/unit_cache.py)
        self.walk_only: Callable[[Function], bool] | None = None
        #: an internal error of a walk: raised again by every later query, so each rule that
        #: asks is reported with it (a walk already marked done must not answer "no facts")
        self._failure: Exception | None = None

    # -- queries -------------------------------------------------------------
    def facts(self, fn: Function, kind: type[F]) -> list[F]:
        """The facts of one kind located in `fn`, from every entry that reaches it."""
        self._run_handlers()
        if fn.module in self.fault_paths.whole_modules:
            self._run(fn)  # `fault-paths` code no handler may reach: walked on its own
        # Helpers are walked inside the handlers' walks, with the values they are given.
        return [cast(F, fact) for fact in self._by_fn.get(id(fn), {}).get(kind, {}).values()]

    def reached(self, fn: Function) -> bool:
        """Whether a handler's walk ran `fn` (a helper it called, also through a value the
        scope's call graph does not follow: a dict of methods, a lambda, a decorator)."""
        self._run_handlers()
        return fn in self.reached_fns

    def drop_verdict(self, node: cst.CSTNode) -> bool | None:
        """For a preempt with drop_stale_output=True: True when some handler path reaches it
        with the request's num_in_flight_tokens not known to be 0 (stale tokens to drop),
        False when every handler walk that met it had it at 0, None when none met it."""
        self._run_handlers()
        return self._drops.get(id(node))

    def _run_handlers(self) -> None:
        """Walk every handler once; asked per function and node, so a second call with
        the same handlers returns at once (not a pass over every handler per query)."""
        if self._failure is not None:
            raise self._failure
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

    def _run(self, fn: Function, cls: ClassInfo | None = None, branch: Branch | None = None) -> None:
        """Walk `fn`; `cls`: the handler class it is walked for when it inherits `fn`
        (`self.method` then resolves to that class's most-derived override); `branch`: an
        `except` branch of `fn` catching a failed engine step (steps.py), walked alone as a
        handler's body."""
        key: tuple[Function, object] = (fn, cls) if branch is None else (fn, id(branch))
        if key in self._done:
            return
        self._done.add(key)
        if cls is None and branch is None and self._abstract(fn):
            # an instance is always of a subclass, walked as one that inherits `fn`
            self.notes.append(f"{fn.qualname}: its class is abstract; walked for its subclasses")
            return
        is_handler = fn in self.fault_paths.handler_set or cls is not None or branch is not None
        walk = _EntryWalk(self, fn, is_handler=is_handler, self_class=cls, branch=branch)
        try:
            walk.run()
        except (Abandon, RecursionError):
            self.notes.append(f"{fn.qualname}: too many paths or too deep; not reported")
            return
        except Exception as err:
            self._failure = err
            raise
        for fact in walk.found:
            per_kind = self._by_fn.setdefault(id(fact.fn), {}).setdefault(type(fact), {})
            per_kind.setdefault(id(fact.node), fact)
        if is_handler:
            for node_id in walk.drops:
                self._drops[node_id] = self._drops.get(node_id, False) or node_id in walk.harmful_drops

    def _abstract(self, fn: Function) -> bool:
        """Whether the class of method `fn` leaves a method `@abstractmethod` (its own or
        inherited), or is an `ABC` whose subclasses inherit `fn`: no object of it is made."""
        cls, project = fn.class_info, self.project
        if cls is None:
            return False
        if any(b.rsplit(".", 1)[-1] == "ABC" for b in cls.bases) and any(
            handler is fn for handler, _ in self.fault_paths.inherited_handlers
        ):
            return True
        for each in project.class_chain(cls):
            if "abstractmethod" not in each.module.text:
                continue  # read off the text first: a method's tree is parsed only when asked
            for name, method in each.methods.items():
                if _is_abstract(method) and _is_abstract(project.method(cls, name)):
                    return True
        return False

    def generation_of(self, fn: Function) -> V.Generation:
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

    def installed_vllm_method(self, fn: Function, name: str) -> Function | None:
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

    def shipped_vllm_method(
        self, fn: Function, name: str, gen: V.Generation, self_class: ClassInfo | None = None
    ) -> list[vllm_summaries.PathEffects] | None:
        """`super().name` into vLLM's own base class, from the summaries shipped for the
        handler's API generation (vllm_summaries.py): a list of path effects, None when
        there is no usable summary."""
        cls = fn.class_info
        data = vllm_summaries.for_generation(gen) if cls is not None else None
        if data is None or cls is None:
            return None
        for base in cls.bases:
            ref = fn.module.imports.get(base.split(".")[0])
            if ref is None or ref.level or ref.module.split(".")[0] != "vllm" or not ref.name:
                continue
            found = vllm_summaries.lookup(data, ref.module, ref.name, name)
            if isinstance(found, bool):  # not in the data
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

    def path_effects(self, fn: Function) -> list[vllm_summaries.PathEffects] | None:
        """What each path through `fn` (a method of vLLM's own, walked as a helper called on
        `self`) leaves in the walk's state, for vllm_summaries.py; None when it depends on
        `fn`'s other arguments or marks stale output to be dropped (then not summarised)."""
        walk = _EntryWalk(self, fn, is_handler=False)
        env: dict[str, Val.Value] = {
            p: None if p in ("self", "cls") and fn.is_method else Val.Param(p) for p in fn.params
        }
        start = State(env)
        walk.stack.append((fn, None))
        walk.selves.append(fn.class_info)
        try:
            flow = walk.suite(fn.node.body, [start])
        except (Abandon, RecursionError):
            return None
        if walk.drops:
            return None
        out: list[vllm_summaries.PathEffects] = []
        for state in (flow.normal + flow.ret) or [start]:
            effects: vllm_summaries.PathEffects = {
                "freed": sorted({key for key, _ in state.freed}),
                # a loop's skip marker names its node (walk/state.skip): kept, as a plain "skip"
                "evicted": [list(e) for e in sorted({(k, "skip" if k == "#skip" else q) for k, q in state.evicted})],
                "zeroed": sorted(map(list, state.zeroed)),
                "pending": sorted([key, sorted(missing)] for key, _, missing in state.pending),
            }
            keys = effects["freed"] + [e[0] for k in ("evicted", "zeroed", "pending") for e in effects[k]]
            if any(key.startswith("p:") for key in keys):
                return None
            if effects not in out:
                out.append(effects)
        return sorted(out, key=repr)

    def _own_texts(self, info: ModuleInfo) -> Iterator[str]:
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


class _EntryWalk(ControlFlow):
    """One entry function's walk: a handler (its body, or the decorator's wrapper around it),
    an `except` branch catching a failed engine step, or a helper walked on its own."""

    def __init__(
        self,
        interp: Interpreter,
        entry: Function,
        *,
        is_handler: bool,
        self_class: ClassInfo | None = None,
        branch: Branch | None = None,
    ) -> None:
        super().__init__(interp, entry, interp.generation_of(entry), is_handler=is_handler, self_class=self_class)
        self.branch = branch  # an `except` branch walked alone (a step guard), or None

    def run(self) -> None:
        fn = self.entry
        env: dict[str, Val.Value] = {}
        for param in fn.params:
            env[param] = None if param in ("self", "cls") and fn.is_method else Val.Param(param)
        frame, body = fn, (fn.node.body if self.branch is None else self.branch.body)
        wrapper = self._decorator_wrapper(fn) if self.branch is None else None
        if wrapper is not None:  # the decorator's wrapper runs, and calls `fn` where it does
            frame, body, env = wrapper
            if self.is_handler:
                self.interp.reached_fns.add(frame)
        self.stack.append((frame, None))
        self.selves.append(self.self_class or fn.class_info)
        flow = self.suite(body, [State(env)])
        self.selves.pop()
        self.stack.pop()
        self.report_decrements()
        ends = flow.normal + flow.ret
        if self.branch is not None:  # the branch also ends where it leaves the loop around it
            ends += flow.cont + flow.brk
        for state in ends:
            if not self.is_handler:
                continue  # a helper may leave its frees and resets to its caller: asked from the handlers
            # A free is judged on the path's final state: a freed request whose dirty tail no
            # eviction (before or after the free, with ids read before it) dropped.
            for key, site in state.freed:
                gap = self.covered(state, key)
                if gap is not None:
                    self.report_uncovered(site, gap)
            for _key, site, _missing in state.pending:
                if id(site.node) in self.drops:
                    self.harmful_drops.add(id(site.node))
                    self.report_drop(site)
                else:
                    self.report_counters(site)

    def _decorator_wrapper(self, fn: Function) -> tuple[Function, cst.BaseSuite, dict[str, Val.Value]] | None:
        """`@deco` on `fn` where `deco` is a project function returning a function it
        defines (`def deco(f): def wrapper(self, exc): ...; return wrapper`): (wrapper,
        its body, its parameters with `f` bound to `fn`), for the innermost such decorator;
        None otherwise."""
        for decorator in reversed(fn.node.decorators):
            expr = decorator.decorator
            if not isinstance(expr, (cst.Name, cst.Attribute)):
                continue
            ref = ir.callee_ref(expr)
            target = self.interp.project.resolve_call(fn, ref) if ref is not None else None
            deco = target[0] if target is not None else None
            if deco is None or not deco.params:
                continue
            returned = [
                small.value.value
                for line in deco.node.body.body
                if isinstance(line, cst.SimpleStatementLine)
                for small in line.body
                if isinstance(small, cst.Return) and isinstance(small.value, cst.Name)
            ]
            wrapper = deco.nested.get(returned[0]) if len(returned) == 1 else None
            if wrapper is None:
                continue
            self.interp.note(f"{fn.qualname}: walked through its decorator `{deco.qualname}`")
            env: dict[str, Val.Value] = {param: Val.Param(param) for param in wrapper.params}
            if fn.is_method and wrapper.params:
                env[wrapper.params[0]] = None  # `self`
            env[deco.params[0]] = Val.FunctionRef(fn, False)
            return wrapper, wrapper.node.body, env
        return None


def _is_abstract(fn: Function | None) -> bool:
    if fn is None or "abstractmethod" not in fn.module.text:
        return False  # read off the text first
    node = fn.node
    return node is not None and any(
        (ir.dotted_name(d.decorator) or "").rsplit(".", 1)[-1] == "abstractmethod" for d in node.decorators
    )
