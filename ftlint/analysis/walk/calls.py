"""Calls: methods of the values the walk tracks (block-id sets, `req_to_blocks`, the
running queue, method tables), vLLM primitives however they are reached (an alias,
`getattr`, `functools.partial`, `operator.methodcaller`, a table), builtins, lambdas, and
project functions, walked in the caller's state (a helper's effect is per path). vLLM's
own methods reached through `super()` are read from its source or from the summaries
shipped per API generation (vllm_summaries.py)."""

from __future__ import annotations

import builtins
import functools
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import libcst as cst

from ftlint.analysis import values as Val
from ftlint.analysis.walk.base import MAX_CALL_DEPTH, UNROLLED
from ftlint.analysis.walk.effects import UNKNOWN_KEYWORDS, Args, Effect, Keywords
from ftlint.analysis.walk.expressions import (
    API_OBJECTS,
    FIRST_GROUP_ONLY,
    Expressions,
    arithmetic,
    literal_one,
    made_by_loop,
)
from ftlint.analysis.walk.shapes import (
    MUTATORS,
    Body,
    defaults,
    module_tree,
    phase_test,
    predicate_test,
    record_empties,
    record_factories,
    record_fields,
    registering_decorators,
    registrations,
    zeroed_counters,
)
from ftlint.analysis.walk.state import (
    CONFIRMED_ZERO,
    EXIT_STACK,
    Flow,
    Results,
    Site,
    State,
    cell,
    covered,
    heap_of,
    merge_results,
    not_at_zero,
    promote,
    reset_pending,
    skipping,
)
from ftlint.core import vocabulary as V
from ftlint.index.project import Function
from ftlint.syntax import ir

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from ftlint.analysis import vllm_summaries
    from ftlint.index.project import ClassInfo, ModuleInfo

#: modules whose callables the walk reads by name (Calls._stdlib_call)
_STDLIB_MODULES = frozenset({"itertools", "dataclasses", "types", "contextlib", "threading", "asyncio"})
_PASSTHROUGH = frozenset(
    {"list", "set", "tuple", "frozenset", "sorted", "reversed", "iter", "chain", "from_iterable", "filter", "deque"}
)
_BUILTINS = frozenset(
    {
        "ceil",
        "floor",
        "int",
        "hasattr",
        "isinstance",
        "callable",
        "setattr",
        "getattr",
        "len",
        "enumerate",
        "range",
        "partial",
        "next",
        "zip",
        "max",
        "min",
        "methodcaller",
        "vars",
        "slice",
        "itemgetter",
        "attrgetter",
        "islice",
        "divmod",
        "defaultdict",
        V.CEIL_DIVIDE,
    }
)
#: standard-library makers read as the builtins of the same name (itertools' pass their
#: elements through; `defaultdict(set)` is an empty dict)
#: rounding a block ratio: the block index it gives (`math.floor`, `int`: the one the boundary is in)
_ROUNDING = {"ceil": "cceil", "floor": "cblk", "int": "cblk"}
_STDLIB_VALUES = {
    "math.ceil": "ceil",
    "math.floor": "floor",
    "itertools.islice": "islice",
    "collections.defaultdict": "defaultdict",
    "operator.itemgetter": "itemgetter",
    "operator.attrgetter": "attrgetter",
    "itertools.chain": "chain",
    "itertools.chain.from_iterable": "from_iterable",
    "chain.from_iterable": "from_iterable",
}
_RESETS_IN_FLIGHT = re.compile(rf"\.{V.COUNTER_FIELDS[0]}\s*=\s*0\b|['\"]{V.COUNTER_FIELDS[0]}['\"]")
#: numpy / torch calls and array methods that give back the block ids they are given
_ARRAY_KEEPS = frozenset({"array", "asarray", "asanyarray", "fromiter", "tensor", "as_tensor", "unique", "sort"})
_ARRAY_JOINS = frozenset({"concatenate", "hstack", "cat", "union1d"})
_ARRAY_METHODS = frozenset({"tolist", "flatten", "ravel", "numpy", "cpu", "copy"})
#: `copy.copy(request)`: another object, on which resets miss the request
_COPIES = frozenset({"copy.copy", "copy.deepcopy"})
_ADDING = frozenset(
    {"add", "update", "extend", "append", "insert", "appendleft", "__ior__", "union", "difference_update"}
)
#: values a collection of block ids does not hold: added, it holds something else
_NOT_IDS = (Val.Instance, Val.Seq, Val.Req, Val.Table, Val.Str, Val.Each, Val.Keyed, Val.PerRequest)
#: a request put back in the waiting queue by hand (`scheduler.waiting.prepend_request(req)`)
_REQUEUE = frozenset({"add_request", "prepend_request", "append", "appendleft", "insert"})
_BLOCK_MAPS = ("cached_block_hash_to_block", "cached_block_hashes_by_block")


@dataclass(frozen=True)
class _VllmMethod:
    """Where a shipped summary's effects happen: a method of vLLM's, in no project module."""

    qualname: str
    module: None = None


class Calls(Expressions):
    """Calls, evaluated in a path's state."""

    # -- from the layer above (control.py) ------------------------------------------------------
    def suite(self, suite: cst.BaseSuite | Body | None, states: list[State]) -> Flow:
        raise NotImplementedError

    # -- calls -----------------------------------------------------------------------------------
    def arguments(self, node: cst.Call, state: State) -> Iterator[tuple[Args, Keywords, State]]:
        """The call's arguments, evaluated left to right, on each path: (positional, keywords,
        the state after them)."""
        for values, s in self.ev_seq([a.value for a in node.args], state):
            self.current = s
            args, keywords = split_args(node.args, values)
            yield args, keywords, s

    def call(self, node: cst.Call, state: State) -> Results:
        func = node.func
        dotted = ir.dotted_name(func) if isinstance(func, cst.Attribute) else None
        out: Results = []
        if dotted is not None and dotted in state.env:  # a bound method kept in an attribute
            for args, keywords, s in self.arguments(node, state):
                out.extend(self.call_value(state.env[dotted], args, keywords, node, s))
            return out
        if (isinstance(func, cst.Name) and func.value == "reduce" and "reduce" not in state.env) or (
            dotted == "functools.reduce"
        ):
            folded = [r for args, _, s in self.arguments(node, state) for r in self._reduce(args, node, s) or ()]
            if folded:
                return folded
        iterated = self._stdlib_call(node, state)
        if iterated is not None:
            return iterated
        # Method calls on values this walk tracks (collections, req_to_blocks, the queue).
        if isinstance(func, cst.Attribute):
            for receiver, s in self.ev(func.value, state):
                for args, keywords, s2 in self.arguments(node, s):
                    out.extend(self.method_call(func, func.attr.value, receiver, args, keywords, node, s2))
            return out
        if isinstance(func, cst.Name) and func.value == V.RUN_METHOD and self.name(func.value, state) is None:
            for args, keywords, s in self.arguments(node, state):
                out.extend(self._run_method(node, args, keywords, s))
            return out
        if (
            isinstance(func, cst.Name)
            and func.value == "map"
            and "map" not in state.env
            and _maps_blocks(node, self, state)
        ):
            # `map(attrgetter("block_id"), blocks)`: the same blocks (their ids)
            return [(args[1], s) for args, _, s in self.arguments(node, state)]
        if isinstance(func, cst.Name) and func.value not in state.env and func.value in _BUILTINS | _PASSTHROUGH:
            return [
                self.builtin(func.value, args, keywords, node, s) for args, keywords, s in self.arguments(node, state)
            ]
        for callee, s in self.ev(func, state):
            for args, keywords, s2 in self.arguments(node, s):
                out.extend(self.call_value(callee, args, keywords, node, s2))
        return out

    def _stdlib_call(self, node: cst.Call, state: State) -> Results | None:
        """`map(f, ...)` / `starmap(f, ...)` with `f` known, `product(a, b)`,
        `dataclasses.replace(record, **changes)`; None for another call."""
        tool = self._stdlib(node.func, state)
        if tool in ("map", "itertools.starmap"):
            return self._mapped(node, tool != "map", state)
        if tool == "itertools.product":  # `product(reqs, managers)`: each pair, as zip's elements are
            return [(Val.Zipped(tuple(args)), s) for args, _, s in self.arguments(node, state)]
        if tool == "dataclasses.replace":
            return [(_replaced(node, args, keywords), s) for args, keywords, s in self.arguments(node, state)]
        if tool == "threading.Thread":  # `Thread(target=f, args=(a,))`: `f(a)` when it is started
            return [(_thread_target(keywords), s) for _, keywords, s in self.arguments(node, state)]
        if tool in ("asyncio.run", "asyncio.wait_for"):  # the coroutine was walked where it was made
            return [(args[0] if args else None, s) for args, _, s in self.arguments(node, state)]
        if tool == "asyncio.gather":  # `await asyncio.gather(*aws)`: what each gives, in a list
            if len(node.args) == 1 and node.args[0].star == "*":
                return self.ev(node.args[0].value, state)
            if any(a.star or a.keyword is not None for a in node.args):
                return None
            return [
                (self.collection(list(values)), s) for values, s in self.ev_seq([a.value for a in node.args], state)
            ]
        if tool == "asyncio.to_thread":  # `await asyncio.to_thread(f, *args)`: `f(*args)`, awaited
            return [
                result
                for args, keywords, s in self.arguments(node, state)
                if args and Val.is_callable(args[0])
                for result in self.call_value(args[0], list(args[1:]), keywords, node, s)
            ] or None
        if tool == "types.SimpleNamespace":  # `utils = SimpleNamespace(union=lambda ...)`: its attributes
            return [
                (None if args or UNKNOWN_KEYWORDS in keywords else Val.Table(tuple(keywords.items())), s)
                for args, keywords, s in self.arguments(node, state)
            ]
        return None

    def _held_callable(
        self, method: str, receiver: Val.Value, args: Args, keywords: Keywords, node: cst.Call, state: State
    ) -> Results | None:
        """`stack.callback(f, ...)` of an ExitStack; `utils.union(...)` of `utils =
        SimpleNamespace(union=...)`; None for another method call."""
        if isinstance(receiver, Val.Str) and receiver.text.startswith(EXIT_STACK) and method == "callback":
            return [self._register_callback(receiver.text, args, keywords, node, state)]
        entry = _namespace_entry(receiver, method)
        return self.call_value(entry, args, keywords, node, state) if entry is not None else None

    def _register_callback(self, stack: str, args: Args, keywords: Keywords, node: cst.Call, state: State) -> Effect:
        """`stack.callback(f, *args)`: kept to run when the `with` block leaves (one the walk
        cannot call, or given keywords, may evict there: an unknown value gives no finding)."""
        registered = state.env.get(stack)
        if not isinstance(registered, Val.Seq):
            return None, state
        key = f"{id(node)}"
        if args and Val.is_callable(args[0]) and not keywords:
            self.exit_callbacks[key] = (args[0], tuple(args[1:]), node)
        return None, state.bind(stack, Val.Seq((*registered.items, Val.Str(key))))

    def _stdlib(self, func: cst.BaseExpression, state: State) -> str | None:
        """`map` (the builtin), `itertools.X`, `dataclasses.X`, ... (so named, or imported from
        there, _STDLIB_MODULES): its dotted name; None for another callee."""
        dotted = ir.dotted_name(func) or ""
        if dotted.split(".", 1)[0] in _STDLIB_MODULES and "." in dotted:
            return dotted
        if not isinstance(func, cst.Name) or func.value in state.env:
            return None
        info = self.fn.module
        ref = info.imports.get(func.value) if info is not None else None
        if ref is not None:
            return f"{ref.module}.{ref.name}" if ref.module in _STDLIB_MODULES else None
        own = info is not None and func.value in info.top_functions
        return "map" if func.value == "map" and not own else None

    def _mapped(self, node: cst.Call, star: bool, state: State) -> Results | None:
        """`map(f, reqs)`, `map(f, a, b)`, `starmap(f, pairs)` with `f` a callable the walk
        knows: `f` called on the element of each, as in `[f(r) for r in reqs]`; None for
        another call (an unknown callable, keywords, a starred argument)."""
        if len(node.args) < 2 or any(a.keyword is not None or a.star for a in node.args):
            return None
        if not Val.is_callable(self.ev_pure(node.args[0].value, state)):
            return None
        out: Results = []
        for args, _, s in self.arguments(node, state):
            source = args[1] if len(args) == 2 else Val.Zipped(tuple(args[1:]))
            self.loops.append([])
            self.loop_nodes.append(id(node))
            try:
                self.current = s
                element = self.element(source, node, None, [])
                some = Val.some_of(source)
                if some:  # over part of the running requests: the others are skipped
                    s = skipping(s, id(node))
                spread = (star or len(args) > 2) and isinstance(element, Val.Seq)
                given: Args = list(cast(Val.Seq, element).items) if spread else [None] if star else [element]
                made = self.call_value(args[0], given, {}, node, s)
            finally:
                born = self.loops.pop()
                self.loop_nodes.pop()
            for value, after in made:
                out.append((made_by_loop(value, born, some), promote([after], born, len(self.loops))[0]))
        return out

    def method_call(
        self,
        func: cst.Attribute,
        method: str,
        receiver: Val.Value,
        args: Args,
        keywords: Keywords,
        node: cst.Call,
        state: State,
    ) -> Results:
        if method in _REQUEUE and args and (ir.dotted_name(func.value) or "").rsplit(".", 1)[-1] == V.SCHEDULER_WAITING:
            state = self.rewind(args[-1], node, state, "requeue")  # put back to wait, blocks kept
        own = self._object_method(func, method, receiver, args, keywords, node, state)
        if own is not None:
            return own
        held = self._held_callable(method, receiver, args, keywords, node, state)
        if held is not None:
            return held
        tracked = self._tracked_method(func, method, receiver, args, keywords, node, state)
        if tracked is not None:
            return [tracked]
        if method in V.BLOCK_LIST_CALLS or method == V.BLOCK_IDS_FOR_TOKENS:
            return [(self._block_list(method, args), state)]
        if (
            method in V.EFFECTS
            or (method == V.KV_MANAGER_FREE[1] and ir.called_name(func.value) == V.KV_MANAGER_FREE[0])
        ) and not isinstance(receiver, (Val.FunctionRef, Val.Partial)):
            return [self.primitive(method, args, keywords, node, state, ir.called_name(func.value) or "")]
        dotted = ir.dotted_name(func)
        if dotted in ("functools.partial", "operator.methodcaller"):
            return [self.builtin(method, args, keywords, node, state)]
        if dotted in _STDLIB_VALUES:  # `itertools.chain.from_iterable(per_group)`: the same blocks
            return [self.builtin(_STDLIB_VALUES[dotted], args, keywords, node, state)]
        if dotted in _COPIES:
            key = Val.key_of(args[0]) if args else None
            # another object (resets on it miss the request) with the same request id and
            # counters: the blocks read through it are the request's
            return [(Val.Req(f"copy:{id(node)}", key) if key is not None else None, state)]
        callee: Val.Value = None
        ref = ("self", method) if ir.is_own_class(func.value) else ir.callee_ref(func)
        target = self.resolve(ref) if ref else None
        if target is not None:
            callee = Val.FunctionRef(*target)
        if callee is None and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls"):
            callee = self.class_attribute(method)
        if callee is None and isinstance(func.value, cst.Name) and func.value.value == "self":
            callee = self._injected(method)
        if callee is None:
            return self.unresolved(node, state, [*args, *keywords.values()])
        return self.call_value(callee, args, keywords, node, state)

    def _object_method(
        self,
        func: cst.Attribute,
        method: str,
        receiver: Val.Value,
        args: Args,
        keywords: Keywords,
        node: cst.Call,
        state: State,
    ) -> Results | None:
        """A method of an object of a project class (of any of the objects picked at run
        time), or of an array of block ids; None for another receiver."""
        if isinstance(receiver, Val.Either) and all(isinstance(o, Val.Instance) for o in receiver.options):
            # `strategy.apply(...)` with the strategy picked at run time: any of them
            return [
                result
                for option in receiver.options
                for result in self.method_call(func, method, option, args, keywords, node, state)
            ]
        if isinstance(receiver, Val.Instance):
            found = self.interp.project.method(receiver.cls, method)
            if found is not None:
                return self.inline(found, True, args, keywords, node, state, receiver)
            run = self.interp.project.method(receiver.cls, "run") if method == "start" else None
            if run is not None and self._a_thread(receiver.cls):  # `worker.start()`: its `run()`, joined later
                return self.inline(run, True, [], {}, node, state, receiver)
        if method == "run_until_complete" and len(args) == 1:  # `loop.run_until_complete(coro)`: walked
            return [(args[0], state)]
        keyed = self._appended_under_key(func, method, args, state)
        if keyed is not None:  # `self.subs["abort"].append(self._abort)`
            return [(None, keyed)]
        handed = _handed_callable(method, receiver, args)
        if handed is not None:  # `pool.submit(f, *args)`, `thread.start()` of `Thread(target=f, ...)`
            return self.call_value(handed[0], list(handed[1]), {} if handed[1] else keywords, node, state)
        array = self._array_call(func, method, receiver, args)
        return [(array, state)] if array is not None else None

    def _a_thread(self, cls: ClassInfo) -> bool:
        """A project class deriving from `threading.Thread`."""
        return any(
            base.rsplit(".", 1)[-1] == "Thread" for each in self.interp.project.class_chain(cls) for base in each.bases
        )

    def _array_call(self, func: cst.Attribute, method: str, receiver: Val.Value, args: Args) -> Val.Value:
        """numpy / torch over block ids: `np.asarray(ids)`, `np.unique(ids)`, `ids.tolist()`
        are the same ids, `np.concatenate(parts)` the join of its parts, `np.empty(0)` none,
        `np.ceil(ratio)` rounds as `math.ceil`; None for another call."""
        if isinstance(receiver, (Val.Ids, Val.Zeros)) and method in _ARRAY_METHODS and not args:
            return receiver
        if not (isinstance(func.value, cst.Name) and self._array_module(func.value.value)):
            return None
        if method in _ARRAY_KEEPS and args and isinstance(args[0], Val.Ids):
            return args[0]
        if method in ("empty", "zeros") and args and args[0] == Val.ZERO:
            return Val.ids(None, "empty")  # `np.empty(0, dtype=np.int64)`: no block
        if method in ("zeros", "zeros_like") and args:
            return Val.Zeros()  # `np.zeros(len(reqs))`: a 0 for each
        if method in _ARRAY_JOINS and args:
            parts = args[0].items if isinstance(args[0], Val.Seq) and len(args) == 1 else args
            ids = [part for part in parts if isinstance(part, Val.Ids)]
            if ids and len(ids) == len(parts):
                joined = ids[0]
                for part in ids[1:]:
                    joined = Val.join_ids(joined, part)
                return joined
        return _number(method, args) if method in _ROUNDING else None

    def _array_module(self, name: str) -> bool:
        """Whether `name` is numpy or torch as this module imports it (`import numpy as np`)."""
        ref = self.fn.module.imports.get(name) if self.fn.module is not None else None
        return ref is not None and ref.name is None and ref.module.split(".")[0] in ("numpy", "torch")

    def _reduce(self, args: Args, node: cst.Call, state: State) -> Results | None:
        """`functools.reduce(step, stages, start)` over a literal sequence of callables (a
        pipeline: `lambda ctx, stage: stage(ctx)`): `step` applied item by item, in order;
        None for another reduce (a call the walk does not follow)."""
        if isinstance(args[1:2] and args[1], Val.Ids) and _unites(node, args):
            return [(args[1], state)]  # `reduce(lambda a, b: a | b, per_group, set())`: every id in them
        if len(args) != 3 or not isinstance(args[1], Val.Seq) or not Val.is_callable(args[0]):
            return None
        items = args[1].items
        if not 0 < len(items) <= UNROLLED or not all(map(Val.is_callable, items)):
            return None
        current: Results = [(args[2], state)]
        for item in items:
            current = [r for acc, s in current for r in self.call_value(args[0], [acc, item], {}, node, s)]
        return current

    def _block_list(self, method: str, args: Args) -> Val.Value:
        """`kv.get_block_ids(request_id)` (a request's block ids, per group), and
        `get_block_ids_for_computed_tokens(request_id, n)`: the blocks holding tokens [0, n),
        with n the computed tokens every block (broad); another n: unknown."""
        key = Val.key_of(args[0]) if args else None
        if method in V.BLOCK_LIST_CALLS:
            return self.read_blocks(key, "all")
        whole = len(args) >= 2 and Val.num_kind(args[1]) == "computed"
        return self.read_blocks(key, "all") if whole else None

    def _run_method(self, node: cst.Call, args: Args, keywords: Keywords, state: State) -> Results:
        """vLLM's `run_method(obj, method, args, kwargs)` (V.RUN_METHOD): `obj.method(*args,
        **kwargs)` for a method's name, `method(obj, *args, **kwargs)` for a callable."""
        bound = {p: args[i] if i < len(args) else keywords.get(p) for i, p in enumerate(_RUN_METHOD_PARAMS)}
        positional, named = _spread(bound["args"]), bound["kwargs"]
        method = bound["method"]
        if positional is None or not isinstance(named, Val.Table) or UNKNOWN_KEYWORDS in keywords:
            return self.unresolved(node, state, [*args, *keywords.values()])
        call_keywords = {str(k): v for k, v in named.items}
        obj_node = next((a.value for a in node.args if a.keyword is None or a.keyword.value == "obj"), None)
        if isinstance(method, Val.Str) and method.text.isidentifier() and obj_node is not None:
            func = cst.Attribute(value=obj_node, attr=cst.Name(method.text))
            return self.method_call(func, method.text, bound["obj"], positional, call_keywords, node, state)
        return self.call_value(method, [bound["obj"], *positional], call_keywords, node, state)

    def _tracked_method(
        self,
        func: cst.Attribute,
        method: str,
        receiver: Val.Value,
        args: Args,
        keywords: Keywords,
        node: cst.Call,
        state: State,
    ) -> Effect | None:
        """A method of a value the walk tracks; None for another receiver."""
        if isinstance(receiver, Val.Running):
            if method in ("remove", "pop") and ir.dotted_name(func.value) and live_running(func.value):
                self.running_mutated.update(self.loop_nodes)
            if method == "pop":
                return self.new_request(node), state
            if method == "append" and _running_items(args) and not live_running(func.value):
                return None, state  # a copy of the queue, filled with its requests
            return (receiver if method == "copy" else None), state
        plain = _plain_method(func, method, receiver, args, state)
        if plain is not None:
            return plain
        if isinstance(receiver, Val.Ids):
            return self._ids_method(func, method, receiver, args, node, state)
        if isinstance(receiver, Val.BlockMap):
            if method in ("get", "pop", "setdefault", "__getitem__"):
                key = Val.key_of(args[0]) if args else None
                return self.read_blocks(key, receiver.groups), state
            if method in ("values", "items"):
                return self.read_blocks("*", receiver.groups), state
            return None, state
        if isinstance(receiver, Val.Table) and method == "get" and args and isinstance(args[0], Val.Str):
            entries = dict(receiver.items)
            known = not any(str(k).startswith(Val.UNKNOWN_KEY) for k in entries)
            default = args[1] if len(args) > 1 and known else None  # `CONFIG.get("margin", 0)`
            return entries.get(args[0].text, default), state
        if isinstance(receiver, Val.Table) and method == "items":
            return Val.TableItems(receiver.items), state
        if isinstance(receiver, Val.PerRequest):
            entry, pair = receiver.entry, receiver.entry.template
            parts: dict[str, Val.Value] = (
                {"items": pair, "keys": pair.items[0], "values": pair.items[1]} if isinstance(pair, Val.Seq) else {}
            )
            return (Val.Each(parts[method], entry.born) if method in parts else None), state
        if isinstance(receiver, Val.Keyed):
            reads = method in ("get", "pop", "setdefault", "__getitem__", "values")
            return (receiver.values if reads else None), state
        if isinstance(receiver, Val.Fields) and method == "update":
            return Val.NONE, self.write_fields(receiver.of, args, keywords, state)
        return None

    def _ids_method(
        self, func: cst.Attribute, method: str, receiver: Val.Ids, args: Args, node: cst.Call, state: State
    ) -> Effect:
        """A method of a set (list, dict) of block ids, or of a block."""
        if method == "pop" and ir.called_name(func.value) in _BLOCK_MAPS:
            return None, self.evict(args[1] if len(args) > 1 else args[0] if args else None, node, state)
        if method == "reset_hash":
            return None, self.evict(receiver, node, state)
        if method in _ADDING:
            name = ir.dotted_name(func.value)
            items = args[1:] if method == "insert" else args
            if name is not None and Val.is_empty_ids(receiver) and _running_items(items):
                return None, state.bind(name, Val.RUNNING)  # `saved = []; for r in running: saved.append(r)`
            if name is not None and any(isinstance(a, _NOT_IDS) for a in items):
                # `spans.append(TailSpan(...))`: a list of other things than block ids
                return None, state.bind(name, None)
            added = [a for a in args if isinstance(a, Val.Ids)]
            if state.env.get("<dropping>") is not None:
                added = [Val.with_start(a, "dropped") for a in added]
            value = receiver
            for a in added:
                value = Val.join_ids(value, a)
            if name is not None and added and method != "union":
                state = state.bind(name, value)
            return (None if method != "union" else value), state
        # KVCacheBlocks.get_block_ids(): the ids of the same blocks, per group
        same = method in ("copy", "get", "pop", "values", "items") or method in V.BLOCK_LIST_CALLS
        return (receiver if same else None), state

    def _injected(self, name: str) -> Val.Value:
        """`self.evict(ids)` where `__init__` alone sets `self.evict = evict or kv.evict_blocks`
        (a collaborator passed in, its default when none is): that callable or object."""
        cls = self.selves[-1] if self.selves else self.fn.class_info
        held = self.init_attribute(cls, name) if cls is not None else None
        return held if Val.is_callable(held) or isinstance(held, Val.Instance) else None

    def class_attribute(self, name: str) -> Val.Value:
        """`self.name` where the class body binds `name = <lambda>` (or `staticmethod(lambda
        ...)`): the lambda, evaluated with no names bound; None otherwise."""
        cls = self.selves[-1] if self.selves else self.fn.class_info
        tree = module_tree(cls.module) if cls is not None else None
        if cls is None or tree is None:
            return None
        for top in tree.body:
            if not (isinstance(top, cst.ClassDef) and top.name.value == cls.name):
                continue
            for line in top.body.body:
                for small in line.body if isinstance(line, cst.SimpleStatementLine) else ():
                    if (
                        isinstance(small, cst.Assign)
                        and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name)
                        and small.targets[0].target.value == name
                    ):
                        found = self._class_lambda(small.value, tree is not cls.module.module)
                        if found is not None:
                            return found
        return None

    def _class_lambda(self, value: cst.BaseExpression, foreign: bool) -> Val.Value:
        bound = True  # a plain function attribute is bound: `self` comes first
        if isinstance(value, cst.Call) and ir.called_name(value.func) == "staticmethod" and value.args:
            value, bound = value.args[0].value, False
        if not isinstance(value, cst.Lambda):
            return None
        if foreign:
            self.foreign.add(id(value))
        lam = Val.Lambda(value, ())
        return Val.Partial(lam, (None,), ()) if bound else lam

    def builtin(self, name: str, args: Args, keywords: Keywords, node: cst.Call, state: State) -> Effect:
        if name == "setattr" and len(args) >= 3:
            named = args[1]
            fields = (
                (named.text,) if isinstance(named, Val.Str) else named.texts if isinstance(named, Val.Strs) else None
            )
            if fields is not None:
                items = tuple((f, args[2]) for f in fields)
                return Val.NONE, self.write_fields(args[0], [Val.Table(items)], {}, state)
            return Val.NONE, self.write_fields(args[0], [None], {}, state)  # a field the walk cannot name
        if name == "getattr" and len(args) >= 2 and isinstance(args[1], Val.Str):
            attr = args[1].text
            if not attr.isidentifier():
                return None, state
            return self.attribute(args[0], attr, cst.Attribute(value=node.args[0].value, attr=cst.Name(attr))), state
        if name == "isinstance" and len(args) == 2 and isinstance(args[0], Val.Req):
            kind = ir.dotted_name(node.args[1].value) if len(node.args) == 2 else None
            # `isinstance(req, Request)` of a running request: true (another class: unknown)
            return (Val.TRUE if kind is not None and kind.rsplit(".", 1)[-1] == "Request" else None), state
        if name == "hasattr" and len(args) == 2 and isinstance(args[1], Val.Str):
            probed = args[1].text  # a feature probe of vLLM's API (`hasattr(kv, "evict_blocks")`): there
            return (Val.TRUE if probed in API_OBJECTS or probed in V.EFFECTS else None), state
        if name == "next" and args and isinstance(args[0], Val.Running):
            return self.new_request(node), state
        if name == "filter" and len(args) == 2 and isinstance(args[1], Val.Running) and self._phase_filter(args[0]):
            return Val.SOME_RUNNING, state  # `filter(has_output, running)`: the decoding requests only
        if name == "islice" and len(node.args) == 2 and isinstance(args[0], Val.Managers):
            return (FIRST_GROUP_ONLY if literal_one(node.args[1].value) else None), state  # `islice(managers, 1)`
        if name == "islice" and len(args) >= 2:  # islice(blocks, start, stop) / islice(blocks, stop)
            if len(args) >= 3:
                return self._slice(args[0], not isinstance(args[1], Val.NoneValue), args[1], args[2]), state
            return self._slice(args[0], False, Val.NONE, args[1]), state
        return value_builtin(name, args, keywords), state

    def _phase_filter(self, predicate: Val.Value) -> bool:
        """A predicate (a lambda, a one-line function) testing the request's phase (shapes.phase_test)."""
        fn = predicate.fn if isinstance(predicate, Val.FunctionRef) else None
        lam = predicate.node if isinstance(predicate, Val.Lambda) else None
        test = predicate_test(fn, lam)
        return test is not None and phase_test(test)

    def call_value(self, callee: Val.Value, args: Args, keywords: Keywords, node: cst.CSTNode, state: State) -> Results:
        if isinstance(callee, Val.Primitive):
            return [self.primitive(callee.name, args, keywords, node, state)]
        if isinstance(callee, Val.Partial):
            merged = dict(callee.keywords)
            merged.update(keywords)
            return self.call_value(callee.callee, list(callee.args) + list(args), merged, node, state)
        if isinstance(callee, Val.FunctionRef):
            return self.inline(
                callee.fn, callee.via_instance, args, keywords, node, state, callee.receiver, callee.closure
            )
        if isinstance(callee, Val.Lambda):
            return self.call_lambda(callee, args, keywords, node, state)
        if isinstance(callee, Val.Instance):
            dunder = self.interp.project.method(callee.cls, "__call__")
            if dunder is not None:
                return self.inline(dunder, True, args, keywords, node, state, callee)
        if isinstance(callee, Val.ItemOf) and len(args) == 1:  # `first = itemgetter(0)`; `first(per_group)`
            return [(self._index(args[0], cst.Integer(str(callee.index)), Val.OTHER), state)]
        if isinstance(callee, Val.MethodCaller) and callee.name == "__setattr__" and len(args) == 1:
            # methodcaller("__setattr__", "num_in_flight_tokens", 0)(req): setattr(req, ...)
            return [self.builtin("setattr", [args[0], *callee.args], {}, cast(cst.Call, node), state)]
        if isinstance(callee, Val.MethodCaller) and callee.name in V.EFFECTS and args:
            # operator.methodcaller("_preempt_request", req, ts)(scheduler): the method of the receiver
            return [self.primitive(callee.name, list(callee.args), dict(callee.keywords), node, state)]
        if isinstance(callee, Val.Either):  # a callable picked at run time among these: any of them
            out: Results = []
            for option in callee.options:
                out.extend(self.call_value(option, args, keywords, node, state))
            return out
        return self.unresolved(node, state, [*args, *keywords.values()], callee, (args, keywords))

    def call_lambda(
        self, callee: Val.Lambda, args: Args, keywords: Keywords, node: cst.CSTNode, state: State
    ) -> Results:
        """A lambda called: its body in its closure's names plus its parameters."""
        lam = callee.node
        if id(lam) in self.foreign and self.relocate is None:
            self.relocate, self.relocate_depth = node, len(self.stack)
            try:
                return self.call_lambda(callee, args, keywords, node, state)
            finally:
                self.relocate = None
        env = {**dict(callee.closure), **heap_of(state.env)}
        params = lam.params
        for index, param in enumerate(params.params):
            name = param.name.value
            env[name] = args[index] if index < len(args) else keywords.get(name)
        for param in params.kwonly_params:
            env[param.name.value] = keywords.get(param.name.value)
        return [
            (value, after.replace(env={**state.env, **heap_of(after.env)}))
            for value, after in self.ev(lam.body, state.replace(env=env))
        ]

    def resolve(self, ref: tuple[str, str]) -> tuple[Function, bool] | None:
        """The project function a call reaches; `self.name` against the class `self` is an
        instance of (the most-derived override), not only the class that defines the caller."""
        cls = self.selves[-1] if self.selves else None
        if ref[0] == "super" and cls is not None and self.fn.class_info is not None:
            following = self.interp.project.method_after(cls, self.fn.class_info, ref[1])
            if following is not None:
                return following, True
        if ref[0] == "self" and cls is not None and cls is not self.fn.class_info:
            found = self.interp.project.method(cls, ref[1])
            return (found, True) if found is not None else None
        return self.interp.project.resolve_call(self.fn, ref)

    def self_class_of(self, fn: Function, via_instance: bool) -> ClassInfo | None:
        """`self` in a called method: the caller's instance when the method is one of its
        class's (inherited or its own), else an instance of the method's class."""
        current = self.selves[-1] if self.selves else None
        own = fn.class_info
        if via_instance and own is not None and current is not None and self.interp.fault_paths.inherits(current, own):
            return current
        return own

    def unresolved(
        self,
        node: cst.CSTNode,
        state: State,
        args: Sequence[Val.Value] = (),
        callee: Val.Value = None,
        split: tuple[Args, Keywords] | None = None,
    ) -> Results:
        """A call the walk cannot follow; `callee`: the value called, when the walk has one;
        `split`: its arguments, positional and by keyword."""
        self.unfollowed += 1  # it may raise (see ControlFlow._try)
        if isinstance(node, cst.Call):
            ref = ir.callee_ref(node.func)
            if ref is not None and ref[0] == "super":
                found = self._super(node, ref[1], state)
                if found is not None:
                    return found
            else:  # a named callee outside the project, or one computed at run time
                made = self._constructed(node, state, args, split)
                if made is not None:
                    return made
                state = self._opaque_call(node, state, callee)
        for given in args:  # `list(map(reset_counters, reqs))`: a helper that zeroes counters runs there
            if isinstance(given, Val.FunctionRef) and zeroed_counters(given.fn):
                state = self.may_reset(None, state, f"`{given.fn.qualname}` is given to a call it cannot follow")
        if _maps_unknown(node, args):  # `map(_clear, reqs)` with `_clear` a callable it cannot see
            state = self.may_reset(None, state, "a callable it does not know is mapped over the requests")
        passed = {Val.key_of(a) for a in args} - {None}
        hooked = isinstance(node, cst.Call) and self._run_time_callable(node.func, callee, state)
        if passed and hooked and self._project_resets():  # `for fn in self.hooks[name]: fn(request)`
            for key in passed:
                state = self.may_reset(key, state, "a callable computed at run time is given the request")
        if passed:  # a request given to a call the walk cannot follow: its counters may be set there
            state = state.replace(at_zero=frozenset(z for z in state.at_zero if z[0] not in passed))
        return [(None, self._may_evict(node, state, args))]

    def _constructed(
        self, node: cst.Call, state: State, args: Sequence[Val.Value], split: tuple[Args, Keywords] | None = None
    ) -> Results | None:
        """`Cls(...)` of a project class (`cls(...)` in its classmethod): an Instance of it,
        a record's fields as the call fills them; an object of another class with its
        `__init__` walked (`split`: the call's arguments), its attributes then kept in the
        state (walk.state.HEAP). An `__init__` that may evict is not walked: taken as covering
        every request. None for another callee."""
        dotted = ir.dotted_name(node.func)
        info = self.fn.module
        if dotted == "cls" and self.fn.is_classmethod and state.env.get("cls") is None:
            cls = self.selves[-1] if self.selves else self.fn.class_info
        elif dotted is None or info is None or not dotted.rsplit(".", 1)[-1].lstrip("_")[:1].isupper():
            return None  # a class is named in CamelCase: `logger.warning()` is not looked up (it loads modules)
        else:
            cls = self.interp.project.resolve_class(info, dotted)
        if cls is None:
            return None
        init = self.interp.project.method(cls, "__init__")
        if init is not None and self._may_evict_fn(init):
            self.interp.note(f"{self.fn.qualname}: `{dotted}.__init__` may evict; taken as covering every request")
            return [(Val.Instance(cls, _filled(record_fields(cls), node, args)), covered(state))]
        fields = record_fields(cls)
        if fields is not None:  # a record: its fields as the call fills them, its writes kept
            filled = _filled(fields, node, args)
            given = {name for name, _ in filled}
            empties = tuple(item for item in record_empties(cls) if item[0] not in given)
            return [(Val.Instance(cls, filled + empties + self._factory_made(cls, given), f"{id(node)}"), state)]
        if split is None or len(self.stack) >= MAX_CALL_DEPTH:
            return [(Val.Instance(cls, ()), state)]
        made = Val.Instance(cls, (), f"{id(node)}")
        if init is None:
            return [(made, state)]
        return [(made, after) for _, after in self.inline(init, True, split[0], split[1], node, state, made)]

    def _factory_made(self, cls: ClassInfo, given: set[str]) -> tuple[tuple[str, Val.Value], ...]:
        """The record fields the constructor left to a `default_factory=lambda: ...` that
        computes a flag, a string or a number (`_flag("FT_EVICT", "1")` with no variable set)."""
        made = ((name, self.evaluated_in(cls.module, source)) for name, source in record_factories(cls))
        return tuple(
            (name, value)
            for name, value in made
            if name not in given and isinstance(value, (Val.Bool, Val.Str, Val.Num))
        )

    def _opaque_call(self, node: cst.Call, state: State, callee: Val.Value) -> State:
        """A call the walk cannot follow: no effect, unless what it calls may be a project
        function that evicts: `x.sweep()` on an object it does not know while a project
        method `sweep` may evict, or a callable computed at run time (`step()`, `table[k]()`)
        while some project function may: then it may evict for any request (an unknown
        value never produces a finding)."""
        func = node.func
        code = ir.code_of(func)
        if isinstance(callee, Val.MethodCaller):
            evicting = self._evicting_method(callee.name)
        elif callee is not None and not isinstance(callee, Val.Req):
            evicting = False  # a value the walk knows, which calls nothing of the project (an item
            # of a collection it cannot see into reads as a request: unknown, as below)
        elif isinstance(func, cst.Attribute):
            evicting = self._evicting_method(func.attr.value)
        else:
            evicting = self._run_time_callable(func, callee, state) and self._project_evicts()
        if not evicting:
            self.interp.note(f"{self.fn.qualname}: `{code}()` is not resolved; taken as no effect")
            return state
        self.interp.note(
            f"{self.fn.qualname}: `{code}()` is not resolved and may reach a project function that evicts; "
            "taken as covering every request"
        )
        return covered(state)

    def _run_time_callable(self, func: cst.BaseExpression, callee: Val.Value, state: State) -> bool:
        """A callable computed at run time: a local the walk has no value for (`step()`), an
        item of a table (`table[key]()`); not `getattr(obj, name)()`, whose object is as likely
        vLLM's (the scheduler) as the project's."""
        return isinstance(func, cst.Subscript) or (
            isinstance(func, cst.Name) and (isinstance(callee, Val.Req) or self._computed(func.value, state))
        )

    def _project_resets(self) -> bool:
        """Whether a module of the project sets a request's in-flight counter to 0: then a
        callable the walk cannot name, given a request, may be one that does."""
        modules = self._project_modules()
        cache = self.interp.evicting_names
        key = ("<resets>", len(modules))
        if key not in cache:
            cache[key] = any(_RESETS_IN_FLIGHT.search(info.text) for info in self._with_imports(modules))
        return cache[key]

    def _computed(self, name: str, state: State) -> bool:
        """Whether a called name holds a callable computed at run time: a local, a parameter or
        a loop variable the walk has no value for (not a module-level name, an import or a
        builtin)."""
        if name in state.env:
            return state.env[name] is None
        info = self.fn.module
        return not (
            info is None
            or name in info.imports
            or name in info.top_functions
            or name in info.classes
            or hasattr(builtins, name)
        )

    def _evicting_method(self, name: str) -> bool:
        """Whether a function of the project (not vLLM's own source) named `name` may evict: it
        calls an eviction primitive, or a function of its module that does (read from the
        functions' own code: nothing is resolved or loaded for it)."""
        modules = self._project_modules()
        cache = self.interp.evicting_names
        key = (name, len(modules))
        if key not in cache:
            cache[key] = any(
                fn.name == name and _evicts_nearby(fn)
                for info in modules
                if any(primitive in info.text for primitive in V.EVICT_PRIMITIVES)
                for fn in info.functions
            )
        return cache[key]

    def _project_evicts(self) -> bool:
        """Whether a module of the project (not vLLM's own source) names an eviction primitive:
        then a callable the walk cannot name may be one that evicts."""
        modules = self._project_modules()
        cache = self.interp.evicting_names
        key = ("*", len(modules))  # as _evicting_method: a module loaded since may name one
        if key not in cache:
            cache[key] = any(
                primitive in info.text for info in self._with_imports(modules) for primitive in V.EVICT_BY_BLOCK
            )
        return cache[key]

    def _appended_under_key(self, func: cst.Attribute, method: str, args: Args, state: State) -> State | None:
        """`self.subs["abort"].append(self._abort)` to a dict the walk holds (an empty
        `defaultdict(list)`, or one of lists of callables under constant keys): the dict with
        that list grown; None for another call."""
        target = func.value
        if method != "append" or len(args) != 1 or not Val.is_callable(args[0]):
            return None
        if not (isinstance(target, cst.Subscript) and len(target.slice) == 1):
            return None
        index, name = target.slice[0].slice, ir.dotted_name(target.value)
        if name is None or not isinstance(index, cst.Index):
            return None
        table, key = self.ev_pure(target.value, state), self.ev_pure(index.value, state)
        if not (isinstance(table, Val.Table) and isinstance(key, Val.Str)):
            return None
        old = dict(table.items).get(key.text)
        if old is None or Val.is_empty_ids(old):
            grown = Val.Seq((args[0],))
        elif isinstance(old, Val.Seq) and all(map(Val.is_callable, old.items)):
            grown = Val.Seq((*old.items, args[0]))
        else:
            return None
        items = (*(item for item in table.items if item[0] != key.text), (key.text, grown))
        return state.bind(name, Val.Table(items))

    def built_in_init(self, cls: ClassInfo, attr: str) -> Val.Value:
        """`self.subs = defaultdict(list)` then `self.subs["abort"].append(self._abort)` (and the
        like) in `__init__`, `self.subs` changed nowhere else in its module: its value once
        `__init__` has run, with the handler's other parameters at their defaults."""
        init = self.interp.project.method(cls, "__init__")
        key = (id(cls), attr)
        if key in self._built:
            return self._built[key]
        if init is None or key in self._building or len(self.stack) >= MAX_CALL_DEPTH:
            return None
        changes = _changes_of(attr)
        total = len(changes.findall(init.module.text))  # the text first: no tree is parsed for most
        segment = init.tree() if total else None
        if segment is None or len(changes.findall(segment.text)) != total:
            self._built[key] = None
            return None
        made = Val.Instance(cls, (), f"init:{id(init)}")
        self._building.add(key)
        current = self.current
        try:
            ends = self.inline(init, True, [], {}, init.node, State({}), made)
        finally:
            self._building.discard(key)
            self.current = current
        values = {s.env.get(cell(made, attr)) for _, s in ends}
        value = values.pop() if len(values) == 1 else None
        self._built[key] = value if _dispatches_all(value) else None
        return self._built[key]

    def registry(self, name: str) -> Val.Value:
        """`_TABLE = {}` filled by a decorator of its module (`@connect("abort")` on functions
        of the project modules loaded or imported): {key: the functions registered under it,
        in the order defined}, a key whose functions lie in several modules left out (their
        order is the import order); `_HOOKS = []` filled by `@register`: the functions."""
        defined = self._defining_module(name)
        if defined is None:
            return None
        info, local = defined
        decorators = registering_decorators(info, local)
        if not decorators:
            return None
        keyed: dict[str | None, list[tuple[ModuleInfo, str]]] = {}
        for module in self._with_imports(self._project_modules()):
            for decorator, position in decorators.items():
                for key, fn_name in registrations(module, decorator, position):
                    keyed.setdefault(key, []).append((module, fn_name))
        table: list[tuple[str | bool, Val.Value]] = []
        for key, entries in keyed.items():
            functions = [self.interp.project.lookup(module, fn_name) for module, fn_name in entries]
            if len({id(m) for m, _ in entries}) > 1 or not all(isinstance(f, Function) for f in functions):
                continue
            refs = Val.Seq(tuple(Val.FunctionRef(cast(Function, f), False) for f in functions))
            if key is None:
                return refs
            table.append((key, refs))
        return Val.Table(tuple(table)) if table else None

    def _with_imports(self, modules: list[ModuleInfo]) -> list[ModuleInfo]:
        """`modules` and the project modules they import (`import kv_receivers`, imported for
        the listeners it registers: what they evict runs where a registry calls them)."""
        project, out = self.interp.project, list(modules)
        seen = {id(info) for info in modules}
        root = os.fspath(project.root) + os.sep
        for info in modules:
            for ref in list(info.imports.values()):
                file = project.find_module_file(ref.module, info.path, ref.level)
                if file is None or not os.fspath(file).startswith(root) or "vllm" in file.parts[:-1]:
                    continue  # (vLLM's own modules are known by name: nothing is loaded for them)
                found = project.module_at(file)
                if found is not None and id(found) not in seen:
                    seen.add(id(found))
                    out.append(found)
        return out

    def _project_modules(self) -> list[ModuleInfo]:
        """The loaded modules of the project's own helpers: under its root, and not vLLM's own
        package (its functions are known by name, core/vocabulary.py: `update_from_output` may
        evict the blocks of a failed KV load, which is no eviction of a dirty tail)."""
        root = os.fspath(self.interp.project.root) + os.sep
        return [
            info
            for info in self.interp.project.loaded()
            if os.fspath(info.path).startswith(root) and "vllm" not in info.path.parts[:-1]
        ]

    def _may_evict_fn(self, fn: Function) -> bool:
        summary = self.interp.fault_paths.summary(fn)
        return summary is not None and summary.may_evict

    def _super(self, node: cst.Call, name: str, state: State) -> Results | None:
        """`super().name(...)` into vLLM's own base class: its source, else its shipped summary;
        None (noted) when neither is found."""
        base = self.interp.installed_vllm_method(self.fn, name)
        if base is not None:
            return (
                self.inline(base, True, [], {}, node, state) if not node.args else self._inline_args(base, node, state)
            )
        shipped = self.interp.shipped_vllm_method(self.fn, name, self.gen, self.selves[-1] if self.selves else None)
        if shipped is not None:
            return self._apply_shipped(name, shipped, node, state)
        self.interp.note(
            f"{self.fn.qualname}: `{ir.code_of(node.func)}()` is neither in the project nor found in vLLM's source or ftlint's vLLM summaries; its effect is not followed"
        )
        return None

    def _may_evict(self, node: cst.CSTNode, state: State, args: Sequence[Val.Value]) -> State:
        """A call the walk cannot follow that is given block ids may evict them: their
        tail counts as covered (an unknown value never produces a finding)."""
        if any(self._evicting_callable(a) for a in args):
            self.interp.note(
                f"{self.fn.qualname}: `{ir.code_of(node)}` is given a callable that may evict; taken as covering every request"
            )
            return covered(state)
        given = [a for a in _nested_ids(args) if not a.stale and a.start != "empty"]
        if not given or self._never_evicts(node):
            return state
        self.interp.note(
            f"{self.fn.qualname}: `{ir.code_of(node)}` may evict the block ids it is given; taken as covering them"
        )
        return state.replace(evicted=state.evicted | {(a.key or "*", Val.quality(a)) for a in given})

    def _never_evicts(self, node: cst.CSTNode) -> bool:
        """`print(ids)`, `logger.warning("%s", ids)`: a builtin that only reads, or a logging
        call: block ids given to them are not evicted there, nor kept to be evicted later (a
        container's `append` is not one: its ids may be evicted from it later)."""
        if not isinstance(node, cst.Call):
            return False
        func, info = node.func, self.fn.module
        if isinstance(func, cst.Name):
            shadowed = info is None or func.value in info.imports or func.value in info.top_functions
            return func.value in _READING_BUILTINS and not shadowed
        if not isinstance(func, cst.Attribute):
            return False
        method, owner = func.attr.value, (ir.dotted_name(func.value) or "").rsplit(".", 1)[-1].lower()
        return method in _LOGGING_METHODS and "log" in owner

    def _evicting_callable(self, value: Val.Value) -> bool:
        """A project function (bound, partial, or an object's `__call__`) that may evict."""
        if isinstance(value, Val.Partial):
            return self._evicting_callable(value.callee)
        if isinstance(value, Val.FunctionRef):
            return self._may_evict_fn(value.fn)
        if isinstance(value, Val.Instance):
            dunder = self.interp.project.method(value.cls, "__call__")
            return dunder is not None and self._may_evict_fn(dunder)
        return False

    def _apply_shipped(
        self, name: str, paths: list[vllm_summaries.PathEffects], node: cst.CSTNode, state: State
    ) -> Results:
        """A shipped summary of vLLM's `name` (vllm_summaries.py) applied as `inline` would
        leave the walk: its effects located in vLLM's file, reached through this call."""
        site = Site(cast("Function", _VllmMethod(name)), node, self.site(node))
        out: Results = []
        for path in paths:
            changed = state.replace(
                freed=state.freed | {(key, site) for key in path["freed"]},
                evicted=state.evicted | {(e[0], e[1]) for e in path["evicted"]},
                zeroed=state.zeroed | {(z[0], z[1]) for z in path["zeroed"]},
                pending=state.pending | {(key, site, frozenset(missing)) for key, missing in path["pending"]},
            )
            out.append((None, changed))
        return out or [(None, state)]

    def _recursive(self, fn: Function, state: State) -> State:
        """A call of a function the walk is inside of (its paths are not followed again): one
        that may evict may evict for any request, one that sets a counter to 0 may set it for
        any request (an unknown value never produces a finding); otherwise no effect."""
        self.recursed.add(fn)
        zeroes = zeroed_counters(fn)
        if zeroes:
            self.interp.note(
                f"{self.fn.qualname}: `{fn.qualname}` is recursive and zeroes counters; taken as for every request"
            )
            state = not_at_zero(state.replace(zeroed=state.zeroed | {("*", f) for f in zeroes}), None, None)
            # the counters it zeroes, for any request: what a preempt left set of the others stays
            state = reset_pending(state, zeroes, lambda _key: True) or state
        summary = self.interp.fault_paths.summary(fn)
        if summary is not None and summary.may_evict:
            self.interp.note(
                f"{self.fn.qualname}: `{fn.qualname}` is recursive and may evict; taken as covering every request"
            )
            return covered(state)
        self.interp.note(f"{self.fn.qualname}: `{fn.qualname}` is recursive; taken as no effect")
        return state

    def _inline_args(self, fn: Function, node: cst.Call, state: State) -> Results:
        return [
            result
            for args, keywords, s in self.arguments(node, state)
            for result in self.inline(fn, True, args, keywords, node, s)
        ]

    def frame_env(
        self, fn: Function, via_instance: bool, args: Args, keywords: Keywords, receiver: Val.Value = None
    ) -> dict[str, Val.Value]:
        """The names of a called project function: its parameters, as the call fills them
        (`self`: the record it is called on, when the walk knows its fields)."""
        params = fn.caller_params(via_instance)
        env: dict[str, Val.Value] = {}
        known = defaults(fn)
        for index, param in enumerate(params):
            env[param] = args[index] if index < len(args) else keywords.get(param, known.get(param))
        env.update(_star_params(fn, params, args, keywords))
        if fn.is_method and via_instance and fn.params:
            made = isinstance(receiver, Val.Instance) and (receiver.fields or receiver.oid)
            env[fn.params[0]] = receiver if made else None
        return env

    def inline(
        self,
        fn: Function,
        via_instance: bool,
        args: Args,
        keywords: Keywords,
        node: cst.CSTNode,
        state: State,
        receiver: Val.Value = None,
        closure: tuple[tuple[str, Val.Value], ...] = (),
    ) -> Results:
        """A project function called in this state: its paths, in the caller's terms (a nested
        function's free names: as bound where it was defined, or now when the function that
        defined it calls it)."""
        if any(frame is fn for frame, _ in self.stack):
            return [(None, self._recursive(fn, state))]
        if len(self.stack) >= MAX_CALL_DEPTH:
            return [(None, self._summarised(fn, node, state))]
        if self.is_handler:
            self.interp.reached_fns.add(fn)
        env = self.frame_env(fn, via_instance, args, keywords, receiver)
        captured = dict(closure)
        if closure and fn.parent is self.fn:
            captured.update({name: state.env[name] for name in list(captured) if name in state.env})
        env = {**captured, **env}
        env.update(heap_of(state.env))  # the attributes of the objects made so far
        self.stack.append((fn, self.site(node)))
        self.selves.append(self.self_class_of(fn, via_instance))
        try:
            flow = self.suite(fn.node.body, [state.replace(env=env)])
        finally:
            self.selves.pop()
            self.stack.pop()
        out: Results = []
        filled = _out_params(fn, via_instance, node, state)
        # a function that calls itself: what a path of this walk returns (a base case, the
        # recursive calls not followed) is not what the call computes
        recursive = fn in self.recursed
        for s in flow.normal:  # a generator's call gives what it yields (its ids)
            made = None if recursive and "<yield>" in s.env else s.env.get("<yield>", Val.NONE)
            out.append((made, s.replace(env=_back(state, s, env, filled))))
        for s in flow.ret:
            returned = s.env.get("<yield>", s.env.get("<return>"))
            if returned == Val.ZERO and s.env.get(CONFIRMED_ZERO) == Val.TRUE:
                returned = Val.Num("cblk")  # `if confirmed <= 0: return 0`: the block it falls in
            out.append((None if recursive else returned, s.replace(env=_back(state, s, env, filled))))
        self.thrown.extend(s.replace(env=_back(state, s, env, filled)) for s in flow.exc)
        if not out:  # every path raises: the caller's except clauses see the entry state
            out.append((None, state))
        return merge_results(out)

    def _summarised(self, fn: Function, node: cst.CSTNode, state: State) -> State:
        """A helper chain deeper than the walk follows: the callee's flat summary
        (faultpath.Summary: may it evict, may it free), evictions first."""
        self.interp.note(f"{self.fn.qualname}: `{fn.qualname}` is {MAX_CALL_DEPTH} calls deep; summarised, not walked")
        summary = self.interp.fault_paths.summary(fn)
        if summary is not None and summary.may_evict:
            state = covered(state)
        if summary is not None and summary.may_free:
            state = self.free("*", node, state)
        return state


def _out_params(fn: Function, via_instance: bool, node: cst.CSTNode, state: State) -> dict[str, str]:
    """`collect(kv, req, into)` with `into` a set of block ids of the caller (an out-parameter
    the callee fills): {the callee's parameter: the caller's name}, for the parameters the
    callee never binds anew."""
    if not isinstance(node, cst.Call) or any(a.star for a in node.args):
        return {}
    params = fn.caller_params(via_instance)
    segment = fn.tree()
    text = segment.text if segment is not None else fn.module.text
    found: dict[str, str] = {}
    for index, arg in enumerate(node.args):
        name = arg.value.value if isinstance(arg.value, cst.Name) else None
        if name is None or not isinstance(state.env.get(name), Val.Ids):
            continue
        param = arg.keyword.value if arg.keyword is not None else params[index] if index < len(params) else None
        if param is not None and not re.search(rf"\b{re.escape(param)}\s*=[^=]", text):
            found[param] = name
    return found


def _back(caller: State, end: State, entry: dict[str, Val.Value], filled: dict[str, str]) -> dict[str, Val.Value]:
    """The caller's names after the call: as before, with the objects made and the sets of
    block ids the callee filled through its parameters (`filled`)."""
    env = {**caller.env, **heap_of(end.env)}
    for param, name in filled.items():
        value = end.env.get(param)
        if isinstance(value, Val.Ids) and value != entry.get(param):
            env[name] = value
    return env


_RUN_METHOD_PARAMS = ("obj", "method", "args", "kwargs")


def _maps_blocks(node: cst.Call, calls: Calls, state: State) -> bool:
    """`map(f, blocks)` over block ids with `f` no project callable (a getter, a lambda): what
    it maps are those blocks (`map(evictor, reqs)` is a call of the project's code)."""
    if len(node.args) != 2 or any(a.star or a.keyword for a in node.args):
        return False
    mapper = calls.ev_pure(node.args[0].value, state)
    items = calls.ev_pure(node.args[1].value, state)
    return isinstance(items, Val.Ids) and not isinstance(mapper, (Val.FunctionRef, Val.Instance, Val.Partial))


def live_running(node: cst.BaseExpression) -> bool:
    """`scheduler.running` itself (an attribute), not a copy or a local."""
    return isinstance(node, cst.Attribute) and node.attr.value == V.SCHEDULER_RUNNING


def _filled(
    fields: tuple[str, ...] | None, node: cst.Call, values: Sequence[Val.Value]
) -> tuple[tuple[str, Val.Value], ...]:
    """A record's fields as a constructor call fills them (positional, then keywords: the
    order `unresolved` is given them); none known when the call spreads `*args`/`**kw`."""
    if not fields or any(a.star for a in node.args) or len(values) != len(node.args):
        return ()
    positional = [a for a in node.args if a.keyword is None]
    named = [a.keyword.value for a in node.args if a.keyword is not None]
    names = [*fields[: len(positional)], *named]
    if len(positional) > len(fields) or len(set(names)) != len(names):
        return ()
    return tuple((n, v) for n, v in zip(names, values, strict=True) if n in fields and v is not None)


def _spread(value: Val.Value) -> Args | None:
    """The values an `args` tuple holds, as `*args` spreads them (split_args): a tuple of
    values its items, a tuple holding block ids the ids (one argument); None when unknown."""
    if isinstance(value, Val.Seq):
        return list(value.items)
    if isinstance(value, Val.Ids):
        return [value]
    return None


def _nested_ids(values: Sequence[Val.Value]) -> list[Val.Ids]:
    """The block ids among values, also inside tuples and dicts (`args=(ids,)`)."""
    out: list[Val.Ids] = []
    for value in values:
        if isinstance(value, Val.Ids):
            out.append(value)
        elif isinstance(value, Val.Seq):
            out.extend(_nested_ids(value.items))
        elif isinstance(value, Val.Table):
            out.extend(_nested_ids([v for _, v in value.items]))
    return out


_STATES = (Val.Member, Val.Str, Val.NoneValue)


def value_builtin(name: str, args: Args, keywords: Keywords) -> Val.Value:
    """A builtin (or functools / operator maker) that only computes a value."""
    if name in _CALLABLE_MAKERS:
        return _callable_made(name, args, keywords)
    if name == "vars" and len(args) == 1:
        return Val.Fields(args[0])
    if name == "callable" and len(args) == 1:  # a state or an action of a machine's table
        return Val.TRUE if Val.is_callable(args[0]) else Val.FALSE if isinstance(args[0], _STATES) else None
    if name in ("max", "min"):
        return _extremum(name, args)
    if name == "len":
        return Val.Length(args[0]) if args and args[0] is not None else Val.OTHER
    if name in (*_ROUNDING, V.CEIL_DIVIDE):
        return _number(name, args)
    if name == "enumerate":
        return Val.Enumerated(args[0]) if args else None
    if name == "range":
        if len(args) == 1:
            return Val.Range("whole", args[0])
        return Val.Range(Val.start_from_index(Val.num_kind(args[0])), args[1]) if len(args) >= 2 else None
    if name in ("slice", "chain", "zip", "defaultdict", "divmod"):
        return _made_by(name, args)
    if name in _PASSTHROUGH:
        return _passed_through(name, args)
    return None


_CALLABLE_MAKERS = frozenset({"methodcaller", "partial", "attrgetter", "itemgetter"})


def _callable_made(name: str, args: Args, keywords: Keywords) -> Val.Value:
    """`methodcaller(...)`, `partial(...)`, `attrgetter(...)`, `itemgetter(0)`: the callable."""
    if name == "methodcaller":
        named = args[0] if args and isinstance(args[0], Val.Str) else None
        return Val.MethodCaller(named.text, tuple(args[1:]), tuple(sorted(keywords.items()))) if named else None
    if name == "partial":
        return Val.Partial(args[0], tuple(args[1:]), tuple(sorted(keywords.items()))) if args else None
    return _getter_made(name, args)


def _getter_made(name: str, args: Args) -> Val.Value:
    if name == "itemgetter":  # only `itemgetter(0)` is read: a literal the walk keeps (0)
        return Val.ItemOf(0) if len(args) == 1 and args[0] == Val.ZERO else None
    attr = args[0].text if len(args) == 1 and isinstance(args[0], Val.Str) else ""
    # `attrgetter("kv_cache_manager")`: `lambda o: o.kv_cache_manager`
    return Val.Lambda(_getter(attr), ()) if attr.isidentifier() else None


#: the steps of a `reduce` that unite collections of block ids
_UNIONS = frozenset(
    {"operator.or_", "operator.add", "operator.ior", "or_", "add", "ior", "set.union", "frozenset.union"}
)


def _unites(node: cst.Call, args: Args) -> bool:
    """`reduce(step, ids[, start])` whose step unites two collections (`operator.or_`,
    `lambda a, b: a | b`, `a + b`) and whose start holds no id."""
    if len(args) == 3 and not Val.is_empty_ids(args[2]):
        return False
    step = node.args[0].value if node.args else None
    if isinstance(step, (cst.Name, cst.Attribute)):
        return ir.dotted_name(step) in _UNIONS
    if not (isinstance(step, cst.Lambda) and len(step.params.params) == 2):
        return False
    body, names = step.body, [p.name.value for p in step.params.params]
    return (
        isinstance(body, cst.BinaryOperation)
        and isinstance(body.operator, (cst.BitOr, cst.Add))
        and [ir.dotted_name(body.left), ir.dotted_name(body.right)] == names
    )


def _plain_method(func: cst.Attribute, method: str, receiver: Val.Value, args: Args, state: State) -> Effect | None:
    """A list of callables grown by `append` (see _callables_appended), or an option read
    with a flag as default from a mapping the walk cannot read (`self.cfg.get("evict", True)`):
    the default, as for a handler given no options (`FaultHandler(engine)`)."""
    grown = _callables_appended(func, method, receiver, args)
    if grown is not None:
        return None, state.bind(*grown)
    if method == "get" and receiver is None and len(args) == 2 and isinstance(args[0], Val.Str):
        if isinstance(args[1], Val.Bool) or (isinstance(args[1], Val.Str) and _environment(func.value)):
            return args[1], state  # `os.environ.get("FT_EVICT", "1")`: the variable unset
        return None
    if method == "getenv" and ir.dotted_name(func.value) == "os" and len(args) == 2 and isinstance(args[1], Val.Str):
        return args[1], state
    if isinstance(receiver, Val.Str) and method in _STRING_METHODS and not args:
        return Val.Str(getattr(receiver.text, method)()), state
    return None


#: string methods whose result the walk computes (`os.environ.get(k, "1").strip().lower()`)
_STRING_METHODS = frozenset({"lower", "upper", "strip", "lstrip", "rstrip", "casefold"})


def _environment(node: cst.BaseExpression) -> bool:
    """`os.environ` (or `environ` imported from os)."""
    return ir.dotted_name(node) in ("os.environ", "environ")


def _number(name: str, args: Args) -> Val.Value:
    """`math.ceil(confirmed / bs)` (also `floor`, `int`), `int("1")`, vLLM's `cdiv(a, b)`."""
    if name in _ROUNDING and args and Val.num_kind(args[0]) == "cratio":
        return Val.Num(_ROUNDING[name])
    if name in _ROUNDING and args and isinstance(args[0], Val.Num) and args[0].kind != "cratio":
        return args[0]  # `int(math.ceil(...))`, `int(n)`: already a whole number
    if name == "int" and args and isinstance(args[0], Val.Str) and args[0].text.strip().isdigit():
        return Val.ZERO if int(args[0].text) == 0 else Val.OTHER  # `int(os.environ.get("MARGIN", "1"))`
    if name == V.CEIL_DIVIDE:  # -(-a // b)
        return Val.Num("cceil") if args and Val.num_kind(args[0]) == "confirmed" else Val.OTHER
    return None


@functools.lru_cache(maxsize=1024)
def _changes_of(attr: str) -> re.Pattern[str]:
    """`self.attr = ...`, `self.attr[key] = ...`, `self.attr.append(...)`, `self.attr[key].append(...)`."""
    return re.compile(rf"\bself\.{re.escape(attr)}\b(?:\[[^\]\n]*\])?\s*(?:\.(?:{MUTATORS})\(|=(?!=))")


def _dispatches_all(value: Val.Value) -> bool:
    """A table of lists of callables (`{"abort": [f, g]}`) or a list of them."""
    if isinstance(value, Val.Table):
        return bool(value.items) and all(_dispatches_all(item) for _, item in value.items)
    return isinstance(value, Val.Seq) and bool(value.items) and all(map(Val.is_callable, value.items))


def _callables_appended(
    func: cst.Attribute, method: str, receiver: Val.Value, args: Args
) -> tuple[str, Val.Value] | None:
    """`self.steps.append(self._evict)` to an empty list or to one of callables (they run in
    turn where it is iterated): (the list's name, the list after); None for another call."""
    name = ir.dotted_name(func.value)
    if method != "append" or len(args) != 1 or not Val.is_callable(args[0]) or name is None:
        return None
    if Val.is_empty_ids(receiver):
        return name, Val.Seq((args[0],))
    if isinstance(receiver, Val.Seq) and receiver.items and all(map(Val.is_callable, receiver.items)):
        return name, Val.Seq((*receiver.items, args[0]))
    return None


#: calls that read what they are given and evict nothing (see Calls._never_evicts)
_READING_BUILTINS = frozenset(
    {
        "print",
        "repr",
        "str",
        "format",
        "len",
        "id",
        "hash",
        "sorted",
        "sum",
        "min",
        "max",
        "any",
        "all",
        "isinstance",
        "callable",
    }
)
_LOGGING_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})


def _namespace_entry(receiver: Val.Value, name: str) -> Val.Value:
    """A callable kept under `name` in a table of attributes (`SimpleNamespace(name=...)`)."""
    if not isinstance(receiver, Val.Table):
        return None
    entry = dict(receiver.items).get(name)
    return entry if Val.is_callable(entry) else None


def _running_items(items: Args) -> bool:
    """Requests of a loop over the running queue (`for r in running: saved.append(r)`)."""
    return bool(items) and all(isinstance(a, Val.Req) and a.key.startswith("it:") for a in items)


def _thread_target(keywords: Keywords) -> Val.Value:
    """`threading.Thread(target=f, args=(a, b), kwargs={...})`: `f` with its arguments (a
    partial, called when the thread starts); None when the target is not known."""
    target = keywords.get("target")
    given = keywords.get("args", Val.Seq(()))
    if not Val.is_callable(target) or not isinstance(given, Val.Seq) or "kwargs" in keywords:
        return None
    return Val.Partial(target, given.items, ())


def _handed_callable(method: str, receiver: Val.Value, args: Args) -> tuple[Val.Value, tuple[Val.Value, ...]] | None:
    """What a thread or an executor runs before the handler goes on (it joins, waits or awaits
    them): `executor.submit(f, *args)`, `loop.run_in_executor(pool, f, *args)`, `thread.start()`
    of `threading.Thread(target=f, args=...)` (a partial): (f, its arguments); None otherwise."""
    if method == "start" and isinstance(receiver, Val.Partial):
        return receiver, ()
    if method == "submit" and args and Val.is_callable(args[0]):
        return args[0], tuple(args[1:])
    if method == "run_in_executor" and len(args) >= 2 and Val.is_callable(args[1]):
        return args[1], tuple(args[2:])
    return None


def _maps_unknown(node: cst.CSTNode, args: Sequence[Val.Value]) -> bool:
    """`map(f, reqs)` with `f` a value the walk does not know and `reqs` running requests."""
    return (
        isinstance(node, cst.Call)
        and ir.called_name(node.func) == "map"
        and len(args) >= 2
        and args[0] is None
        and any(isinstance(a, (Val.Running, Val.Req)) for a in args[1:])
    )


def _replaced(node: cst.Call, args: Args, keywords: Keywords) -> Val.Value:
    """`dataclasses.replace(plan, mode="resume")`: another record of the class, its fields
    those of `plan` with the keywords' values (unknown for a record the walk does not know)."""
    record = args[0] if args else None
    if not isinstance(record, Val.Instance) or not record.fields or UNKNOWN_KEYWORDS in keywords:
        return None
    fields = tuple((name, keywords.get(name, value)) for name, value in record.fields)
    return Val.Instance(record.cls, fields, f"{id(node)}")


@functools.lru_cache(maxsize=64)
def _getter(attr: str) -> cst.Lambda:
    return cast(cst.Lambda, cst.parse_expression(f"lambda obj: obj.{attr}"))


def _passed_through(name: str, args: Args) -> Val.Value:
    """`list(x)`, `sorted(x)`, `filter(f, x)`, ...: the same block ids or requests; `list(steps)`
    of a list of callables: that list."""
    if not args:
        return Val.ids(None, "empty") if name in ("set", "list", "tuple", "frozenset") else None
    source = args[1] if name == "filter" and len(args) > 1 else args[0]  # filter(predicate, items)
    if name in ("list", "tuple") and isinstance(source, Val.Seq) and all(map(Val.is_callable, source.items)):
        return source  # a copy, in order
    if source == FIRST_GROUP_ONLY:
        return source
    if isinstance(source, Val.Each) and name != "filter":  # `reversed(victims)`: one per request still
        return source
    return source if isinstance(source, (Val.Ids, Val.Running)) else None


def _made_by(name: str, args: Args) -> Val.Value:
    """`slice(start, stop)`: a SliceOf; `itertools.chain(a, b)`: the block ids of every part;
    `zip(a, b)`: Zipped; `defaultdict(set)`: an empty dict; `divmod(a, b)`: (a // b, a % b)."""
    if name == "zip":
        return Val.Zipped(tuple(args)) if args else None
    if name == "defaultdict":
        return Val.Table(())
    if name == "divmod":
        return Val.Seq((arithmetic(cst.FloorDivide(), args[0], args[1]), Val.OTHER)) if len(args) == 2 else None
    if name == "slice":  # slice(stop) / slice(start, stop[, step])
        if not args:
            return None
        lower, upper = (args[0], args[1]) if len(args) >= 2 else (Val.NONE, args[0])
        return Val.SliceOf(lower, upper, len(args) >= 2 and not isinstance(args[0], Val.NoneValue))
    parts = [a for a in args if isinstance(a, Val.Ids)]
    if not parts or len(parts) != len(args):
        return None
    value = parts[0]
    for other in parts[1:]:
        value = Val.join_ids(value, other)
    return value


def _extremum(name: str, args: Args) -> Val.Value:
    kinds = [a.kind for a in args if isinstance(a, Val.Num)]
    if "early" in kinds:
        return Val.Num("early")
    nonzero = set(kinds) - {"zero"}
    if name == "max" and len(kinds) == len(args) and len(nonzero) == 1:
        return Val.Num(nonzero.pop())
    return Val.OTHER if kinds else None


def split_args(args: Sequence[cst.Arg], values: Sequence[Val.Value]) -> tuple[Args, Keywords]:
    """(positional values, keyword values); `**{"k": v}` and `*(a, b)` of known literals are
    spread, `*parts` of block ids gives the ids themselves (`set().union(*per_group)`); an
    unknown `**mapping` puts UNKNOWN_KEYWORDS in the keywords (any keyword may be in it),
    another unknown `*iterable` gives one unknown value."""
    positional: Args = []
    keywords: Keywords = {}
    for arg, value in zip(args, values, strict=False):
        if arg.keyword is not None:
            keywords[arg.keyword.value] = value
        elif arg.star == "":
            positional.append(value)
        elif arg.star == "**" and isinstance(value, Val.Table):
            keywords.update((str(k), v) for k, v in value.items)
        elif arg.star == "**":
            keywords[UNKNOWN_KEYWORDS] = None
        elif isinstance(value, Val.Seq):
            positional.extend(value.items)
        else:
            positional.append(value if isinstance(value, Val.Ids) else None)
    return positional, keywords


def _star_params(fn: Function, params: Sequence[str], args: Args, keywords: Keywords) -> dict[str, Val.Value]:
    """`*rest` and `**fields` of a called function: the extra positional values (a tuple) and
    the extra keywords (a dict), unknown when the caller passed an unknown `**mapping`."""
    out: dict[str, Val.Value] = {}
    node_params = fn.node.params
    star = node_params.star_arg
    if isinstance(star, cst.Param):
        out[star.name.value] = Val.Seq(tuple(args[len(params) :]))
    if node_params.star_kwarg is not None:
        extra = tuple((k, v) for k, v in keywords.items() if k not in params)
        out[node_params.star_kwarg.name.value] = None if UNKNOWN_KEYWORDS in keywords else Val.Table(extra)
    return out


def _evicts_nearby(fn: Function) -> bool:
    """`fn` calls an eviction primitive, or a function of its own module (or class) that
    does, by name."""

    def direct(f: Function) -> bool:
        return any(e.kind == "evict" for e in ir.iter_effects(f.ir))

    if direct(fn):
        return True
    module = fn.module
    called = {e.callee[1] for e in ir.iter_effects(fn.ir) if e.kind == "call" and e.callee is not None}
    return any(other.name in called and other is not fn and direct(other) for other in module.functions)
