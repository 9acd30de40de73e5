"""What an expression denotes on each path (values.py), with its effects: names and
attributes of vLLM's objects (the running queue, block lists, token counts), arithmetic
on token and block counts, slices and indexes of block lists, collections and
comprehensions, and the loop element of each kind of iterable."""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, cast

import libcst as cst

from ftlint.analysis import values as Val
from ftlint.analysis.walk.base import MAX_STEPS, UNROLLED
from ftlint.analysis.walk.effects import Args, Effects, Keywords
from ftlint.analysis.walk.shapes import (
    bound_once,
    class_flag,
    class_string,
    class_table,
    comparisons,
    counted_names,
    decided,
    defaults,
    derived_names,
    init_assignment,
    module_constant,
    module_expression,
    module_name_list,
    names_in,
    phase_test,
    recorded,
    settled_fields,
    string,
    target_names,
)
from ftlint.analysis.walk.state import (
    MAX_STATES,
    Abandon,
    Results,
    State,
    cell,
    heap_of,
    merge,
    merge_results,
    promote,
    skipping,
)
from ftlint.core import vocabulary as V
from ftlint.index.project import Function
from ftlint.syntax import ir

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ftlint.index.project import ClassInfo, ModuleInfo

_COMPARE_OPS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)
#: attributes whose value does not depend on the object they are read on
_ATTRIBUTES: dict[str, Val.Value] = {
    V.SCHEDULER_RUNNING: Val.RUNNING,
    V.SINGLE_TYPE_MANAGERS: Val.MANAGERS,
    V.BLOCK_POOL: Val.POOL,
    V.NUM_COMPUTED_TOKENS: Val.Num("computed"),
    V.NUM_IN_FLIGHT_TOKENS: Val.Num("inflight"),
    V.MANAGER_BLOCK_SIZE: Val.Num("bs"),
}
_COMPARISONS: dict[type, str] = {
    cst.Equal: "==",
    cst.NotEqual: "!=",
    cst.LessThan: "<",
    cst.LessThanEqual: "<=",
    cst.GreaterThan: ">",
    cst.GreaterThanEqual: ">=",
}
#: comparisons deciding whether two enum members are the same: True for `is`/`==`
_IDENTITY: dict[type, bool] = {cst.Is: True, cst.Equal: True, cst.IsNot: False, cst.NotEqual: False}
#: `in` / `not in`: whether the test holds when the item is there
_CONTAINS: dict[type, bool] = {cst.In: True, cst.NotIn: False}
#: the vLLM objects a handler reaches by these attribute names: always there (a probe with
#: `getattr(..., None)` / `hasattr` / `is None` finds them)
API_OBJECTS = frozenset({"kv_cache_manager", "coordinator", "single_type_managers", "block_pool", "scheduler"})


@functools.lru_cache(maxsize=256)
def _api_binding(name: str) -> re.Pattern[str]:
    """`name = getattr(...)` or `name = x.kv_cache_manager` (an API object) in a function's text."""
    objects = "|".join(sorted(API_OBJECTS))
    return re.compile(rf"\b{re.escape(name)}\s*=(?!=)[^\n]*\b(?:getattr|{objects})\b")


def _constants_alike(left: Val.Value, right: Val.Value) -> bool:
    """Two values the walk compares exactly: enum members, strings, flags."""
    return any(isinstance(left, kind) and isinstance(right, kind) for kind in (Val.Member, Val.Str, Val.Bool))


#: values that are never None at run time (a block list read with `.get()` may be: not here)
_NEVER_NONE = (
    Val.Manager,
    Val.Managers,
    Val.Running,
    Val.Req,
    Val.Instance,
    Val.Str,
    Val.Member,
    Val.Bool,
    Val.Seq,
    *Val.CALLABLE,  # `work = getattr(self, f"_do_{state}", None)` found a method
)


def _against_none(left: Val.Value, right: Val.Value) -> bool:
    """`x is None` with `x` None itself or a value that never is (a KV-cache group, a request)."""
    return isinstance(right, Val.NoneValue) and isinstance(left, (Val.NoneValue, *_NEVER_NONE))


def _contained(item: Val.Str, within: Val.Seq, holds_when_there: bool) -> Val.Value:
    """`"1" in ("1", "true")` over a tuple of strings: decided; another tuple: unknown."""
    if not within.items or not all(isinstance(v, Val.Str) for v in within.items):
        return None
    return Val.Bool((item in within.items) is holds_when_there)


def _preempted_test(node: cst.Comparison, same: bool | None) -> bool | None:
    """`r.status == RequestStatus.PREEMPTED` (`is`, `!=`, `is not`): whether the test holds
    of a preempted request; None for another test."""
    if same is None or not (isinstance(node.left, cst.Attribute) and node.left.attr.value == "status"):
        return None
    named = ir.dotted_name(node.comparisons[0].comparator) or ""
    return same if named.rsplit(".", 2)[-2:] == ["RequestStatus", "PREEMPTED"] else None


def _integer(node: cst.BaseExpression) -> bool:
    """`0`, `-1`: a literal position."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, cst.Integer)


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


#: the base classes that make a class an enum (its class-level names are its members)
_ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"})
#: where a slice of a whole block list ends, by the kind of its upper bound
_SLICE_ENDS = {
    "zero": "empty",
    "cblk": "head",  # `blocks[:boundary]`: ends where the dirty tail begins
    "early": "ehead",  # `blocks[:boundary - 1]`: ends before it
    "kblk": "lhead",  # ends inside the dirty tail
}


class Expressions(Effects):
    """Expressions, evaluated in a path's state: [(value, state after)], one per path."""

    # -- from the layers above (calls.py, control.py) ----------------------------------------
    def call(self, node: cst.Call, state: State) -> Results:
        raise NotImplementedError

    def assign(self, target: cst.BaseExpression, value: Val.Value, state: State) -> State:
        raise NotImplementedError

    def resolve(self, ref: tuple[str, str]) -> tuple[Function, bool] | None:
        raise NotImplementedError

    def call_value(self, callee: Val.Value, args: Args, keywords: Keywords, node: cst.CSTNode, state: State) -> Results:
        raise NotImplementedError

    # -- evaluation --------------------------------------------------------------------------
    def ev_pure(self, node: cst.BaseExpression, state: State) -> Val.Value:
        """A value without its effects (headers of index filters, assignment bases)."""
        results = self.ev(node, state)
        values = {value for value, _ in results}
        return values.pop() if len(values) == 1 else None  # the same on every path, or unknown

    def ev_all(self, node: cst.BaseExpression, states: list[State]) -> Results:
        out = []
        for state in states:
            out.extend(self.ev(node, state))
        return merge_results(out)

    def ev_seq_all(
        self, nodes: Sequence[cst.BaseExpression], states: list[State]
    ) -> list[tuple[tuple[Val.Value, ...], State]]:
        return [result for state in states for result in self.ev_seq(nodes, state)]

    def ev_seq(self, nodes: Sequence[cst.BaseExpression], state: State) -> list[tuple[tuple[Val.Value, ...], State]]:
        """Evaluate nodes left to right: [(values, state)]."""
        results: list[tuple[tuple[Val.Value, ...], State]] = [((), state)]
        for node in nodes:
            nxt = []
            for values, current in results:
                for value, after in self.ev(node, current):
                    nxt.append(((*values, value), after))
            results = nxt if len(nxt) <= MAX_STATES else [(nxt[0][0], merge([s for _, s in nxt]))]
        return results

    def ev(self, node: cst.BaseExpression, state: State) -> Results:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise Abandon()
        self.current = state
        if isinstance(node, cst.Name):
            return [(self.name(node.value, state), state)]
        if isinstance(node, cst.Integer):
            return [(Val.ZERO if node.value == "0" else Val.OTHER, state)]
        if isinstance(node, cst.SimpleString):
            return [(string(node), state)]
        if isinstance(node, cst.Attribute):
            dotted = ir.dotted_name(node)
            if dotted is not None and dotted in state.env:
                return [(state.env[dotted], state)]
            out: Results = []
            for base, after in self.ev(node.value, state):
                made = isinstance(base, Val.Instance) and bool(base.oid)
                if made and cell(cast(Val.Instance, base), node.attr.value) in after.env:
                    value: Val.Value = after.env[cell(cast(Val.Instance, base), node.attr.value)]
                elif isinstance(base, Val.Instance) and not (
                    made and _is_self(node.value) and node.attr.value not in dict(base.fields)
                ):  # (`self.name` with no field of that name: resolved as for any method's self)
                    # an object of a project class: its methods
                    method = self.interp.project.method(base.cls, node.attr.value)
                    fields = dict(base.fields)
                    value = (
                        Val.FunctionRef(method, True, base if base.fields or base.oid else None)
                        if method is not None
                        else fields[node.attr.value]
                        if node.attr.value in fields
                        else self.init_attribute(base.cls, node.attr.value)
                    )
                    if value is None:  # `ctx.state.final` of a state object: its class's flag
                        value = self._class_flag(base.cls, node.attr.value)
                else:
                    value = self.attribute(base, node.attr.value, node)
                if (
                    isinstance(value, Val.FunctionRef)
                    and value.fn.is_property
                    and (_is_self(node.value) or isinstance(base, Val.Instance))
                ):
                    out.extend(self.call_value(value, [], {}, node, after))  # `self.prop`: its getter's value
                else:
                    out.append((value, after))
            return out
        if isinstance(node, cst.Call):
            return self.call(node, state)
        if isinstance(node, cst.Subscript):
            return self.subscript(node, state)
        if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation, cst.UnaryOperation, cst.Comparison)):
            return self._operation(node, state)
        return self._compound(node, state)

    def _operation(
        self, node: cst.BinaryOperation | cst.BooleanOperation | cst.UnaryOperation | cst.Comparison, state: State
    ) -> Results:
        if isinstance(node, cst.BinaryOperation):
            later = isinstance(node.operator, cst.Add) and _positive(node.right)
            return [
                (
                    Val.Num("kblk")
                    if later and Val.num_kind(left) == "cblk"
                    else arithmetic(node.operator, left, right),
                    s,
                )
                for (left, right), s in self.ev_seq([node.left, node.right], state)
            ]  # `first + 1`: a block past the one the dirty tail begins in
        if isinstance(node, cst.BooleanOperation):
            return self._boolean(node, state)
        if isinstance(node, cst.UnaryOperation):
            minus = isinstance(node.operator, cst.Minus)
            negate = isinstance(node.operator, cst.Not)
            return [
                (
                    Val.negated(v)
                    if minus
                    else Val.TailTest(not v.clean)
                    if negate and isinstance(v, Val.TailTest)
                    else Val.Bool(not Val.truth(v))
                    if negate and Val.truth(v) is not None
                    else None,
                    s,
                )
                for v, s in self.ev(node.expression, state)
            ]
        nodes = [node.left, *(c.comparator for c in node.comparisons)]
        operator = _COMPARISONS.get(type(node.comparisons[0].operator)) if len(node.comparisons) == 1 else None
        same = _IDENTITY.get(type(node.comparisons[0].operator)) if len(node.comparisons) == 1 else None
        present = same is not None and _is_none(node.comparisons[0].comparator) and self._api_object(node.left)
        if present:  # `kv is None` with `kv = getattr(sched, "kv_cache_manager", None)`: never
            return [(Val.Bool(not same), s) for _, s in self.ev_seq(nodes, state)]
        preempted = _preempted_test(node, same)
        if preempted is not None:  # `r.status == RequestStatus.PREEMPTED` of a request preempted here
            request = cast(cst.Attribute, node.left).value
            return [(self._preempted(req, s, preempted), s) for req, s in self.ev(request, state)]
        contains = _CONTAINS.get(type(node.comparisons[0].operator)) if len(node.comparisons) == 1 else None
        return [
            (
                Val.Bool((left == right) is same)
                if same is not None and (_constants_alike(left, right) or _against_none(left, right))
                else _contained(left, right, contains)
                if contains is not None and isinstance(left, Val.Str) and isinstance(right, Val.Seq)
                else Val.sign_test(left, operator, right) or Val.tail_test(left, operator, right)
                if operator
                else None,
                s,
            )
            for (left, *rest), s in self.ev_seq(nodes, state)
            for right in rest[:1]
        ]

    def _preempted(self, request: Val.Value, state: State, holds: bool) -> Val.Value:
        """`holds` where `request` was preempted on this path with its counters still to
        reset (this loop's request after a loop that preempted each); unknown otherwise."""
        key = Val.key_of(request)
        born = self.loops[-1] if self.loops else []
        if key is None or not any(k == key or (k == "*" and key in born) for k, _, _ in state.pending):
            return None
        return Val.Bool(holds)

    def _boolean(self, node: cst.BooleanOperation, state: State) -> Results:
        """`a and b`, `a or b`: the left side when it decides (`False and ...`, `True or ...`),
        else the right side where the left is decided, else either (and, when the right side
        has effects, the path that skipped it)."""
        out: Results = []
        conjunction = isinstance(node.operator, cst.And)
        for left, s in self.ev(node.left, state):
            truth = Val.truth(left)
            if truth is not None and truth is not conjunction:
                out.append((left, s))
                continue
            rights = self.ev(node.right, s)
            out.extend((right if truth is not None else Val.join(left, right), s2) for right, s2 in rights)
            if truth is None and any(not _same_effects(s, s2) for _, s2 in rights):
                out.append((left, self.short_circuit(node, s)))  # `self.on and evict(ids)`: skipped
        return out

    def _formatted(self, node: cst.FormattedString, state: State) -> Results:
        """`f"_op_{op.value}"` with every part a string the walk knows (no conversion, no
        format spec): that string; else unknown."""
        parts = [p.expression for p in node.parts if isinstance(p, cst.FormattedStringExpression)]
        plain = all(
            isinstance(p, cst.FormattedStringText)
            or (
                isinstance(p, cst.FormattedStringExpression)
                and p.conversion is None
                and p.format_spec is None
                and p.equal is None
            )
            for p in node.parts
        )
        out: Results = []
        for values, s in self.ev_seq(parts, state):
            if not (plain and all(isinstance(v, Val.Str) for v in values)):
                out.append((None, s))
                continue
            texts = iter(cast(Val.Str, v).text for v in values)
            joined = "".join(p.value if isinstance(p, cst.FormattedStringText) else next(texts) for p in node.parts)
            out.append((Val.Str(joined), s))
        return out

    def short_circuit(self, node: cst.BooleanOperation, state: State) -> State:
        """The path where `node.left` decided `node` and its right side did not run: what that
        outcome of the left side says (see ControlFlow, which reads tests as `if` does)."""
        return state

    def _compound(self, node: cst.BaseExpression, state: State) -> Results:
        if isinstance(node, cst.IfExp):
            return self._if_exp(node, state)
        if isinstance(node, (cst.List, cst.Set, cst.Tuple)):
            record = isinstance(node, cst.Tuple)
            return [
                (
                    Val.Seq(tuple(values))
                    if record and not all(isinstance(v, Val.Ids) for v in values)
                    else self.collection(values),
                    s,
                )
                for values, s in self.ev_seq([el.value for el in node.elements], state)
            ]  # `return ids, count`: a pair to unpack, not ids (a tuple of ids lists is ids)
        if isinstance(node, cst.Dict):
            return self._dict(node, state)
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            return self.comprehension(node, state)
        if isinstance(node, cst.Await):
            return self.ev(node.expression, state)
        if isinstance(node, cst.FormattedString):
            return self._formatted(node, state)
        if isinstance(node, cst.StarredElement):
            return self.ev(node.value, state)
        if isinstance(node, cst.NamedExpr):
            return [(v, self.assign(node.target, v, s)) for v, s in self.ev(node.value, state)]
        if isinstance(node, cst.Yield) and node.value is not None:
            value = node.value.item if isinstance(node.value, cst.From) else node.value
            out: Results = []
            for v, s in self.ev(value, state):
                old = s.env.get("<yield>")
                out.append((None, s.bind("<yield>", v if old is None else Val.join(old, v))))
            return out
        if isinstance(node, cst.Lambda):
            # a closure over the names bound here; its body is evaluated where it is called
            return [(Val.Lambda(node, tuple(sorted(state.env.items(), key=lambda kv: kv[0]))), state)]
        return [(None, state)]

    def _if_exp(self, node: cst.IfExp, state: State) -> Results:
        out: Results = []
        for test, s in self.ev(node.test, state):
            truth = Val.truth(test)
            if truth is None:  # a flag an earlier test on this path decided
                truth = recorded(node.test, s)
            if truth is not None:  # `managers[0] if first else managers` with `first` known
                chosen, other = (node.body, node.orelse) if truth else (node.orelse, node.body)
                picked = self.ev(chosen, s)
                if _empty_literal(chosen) and not _empty_literal(other):
                    # `tails(...) if evict_on() else set()` with the option off: no tail was looked
                    # for (not "none was dirty"), so an `if ids:` after it skips a dirty tail
                    picked = [(OFF if Val.is_empty_ids(v) else v, s2) for v, s2 in picked]
                out.extend(picked)
                continue
            for (a, b), s2 in self.ev_seq([node.body, node.orelse], s):
                joined = Val.join(a, b)
                if joined is None and (
                    (Val.is_callable(a) and Val.is_callable(b))
                    or (isinstance(a, Val.Member) and isinstance(b, Val.Member))
                    or (isinstance(a, Val.Instance) and isinstance(b, Val.Instance))
                    or (_plan_like(a) and _plan_like(b))
                    or (isinstance(a, Val.Str) and isinstance(b, Val.Str))
                ):
                    # `(self._resume if flag else self._abort)(sched)`: either one is called;
                    # `Phase.REQUEUE if flag else Phase.ABORT`: either state comes next;
                    # `Preempt() if resume else Abort()`: either object's methods run;
                    # `(Step("abort", ids),) if ids else ()`: either plan is carried out;
                    # `"fault.resume" if resume else "fault.abort"`: either topic is published
                    # (each path records which way the flag went, as an `if` does)
                    out.extend([(a, decided(node.test, s2, None, True)), (b, decided(node.test, s2, None, False))])
                else:
                    out.append((joined, s2))
        return out

    def _dict(self, node: cst.Dict, state: State) -> Results:
        out: Results = []
        keys = [el.key for el in node.elements if isinstance(el, cst.DictElement)]
        vals = [el.value for el in node.elements]
        for values, s in self.ev_seq([*keys, *vals], state):
            key_values, item_values = values[: len(values) - len(vals)], values[len(values) - len(vals) :]
            constants = [c for c in map(Val.constant, key_values) if c is not None]
            if len(constants) == len(key_values) == len(item_values):
                out.append((Val.Table(tuple(zip(constants, item_values, strict=True))), s))
            elif len(key_values) == len(item_values) and item_values and all(map(_dispatches, item_values)):
                # `{Mode.ABORT: self._abort, ...}`: keyed by what the walk cannot compute (enum
                # members); any entry may be picked
                unknown = [f"{Val.UNKNOWN_KEY}{n}" for n, _ in enumerate(item_values)]
                out.append((Val.Table(tuple(zip(unknown, item_values, strict=True))), s))
            else:
                out.append((None, s))
        return out

    # -- names and attributes ----------------------------------------------------------------
    def name(self, name: str, state: State) -> Val.Value:
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
        if key not in self.names:
            target = self.interp.project.resolve_call(self.fn, ("name", name))
            found = Val.FunctionRef(*target) if target else module_constant(self.fn.module, name)
            if found is None:
                found = self._module_expression(name)
            if found is None:
                found = self.registry(name)
            self.names[key] = found if found is not None else self._module_functions(name)
        return self.names[key]

    def built_in_init(self, cls: ClassInfo, attr: str) -> Val.Value:
        """`self.attr` built up by several statements of `__init__`: see Calls."""
        return None

    def registry(self, name: str) -> Val.Value:
        """A module-level table that decorators fill (`@connect("abort")`): see Calls."""
        return None

    def _defining_module(self, name: str) -> tuple[ModuleInfo, str] | None:
        """The module a module-level `name` of this function's module is defined in, and its
        name there: this module, or the project module it is imported from (None when that
        module is not the project's)."""
        info = self.fn.module
        ref = info.imports.get(name)
        if ref is None or ref.name is None:
            return info, name
        project = self.interp.project
        file = project.find_module_file(ref.module, info.path, ref.level)
        source = project.module_at(file) if file is not None else None
        return (source, ref.name) if source is not None else None

    def _module_functions(self, name: str) -> Val.Value:
        """`NAME = [f, g, h]` at module level (here or where `name` is imported from), each a
        function of that module: the list of them; None otherwise."""
        project, defined = self.interp.project, self._defining_module(name)
        if defined is None:
            return None
        info, local = defined
        names = module_name_list(info, local)
        functions = [project.lookup(info, n) for n in names or ()]
        if not functions or not all(isinstance(f, Function) for f in functions):
            return None
        return Val.Seq(tuple(Val.FunctionRef(cast(Function, f), False) for f in functions))

    def attribute(self, base: Val.Value, attr: str, node: cst.Attribute) -> Val.Value:
        if attr == "__dict__":
            return Val.Fields(base)
        if isinstance(base, Val.Member) and attr in ("name", "value"):  # `Op.EVICT.value`: "evict"
            text = base.name.rsplit(".", 1)[-1] if attr == "name" else base.text
            return Val.Str(text) if text is not None else None
        if isinstance(base, Val.Table) and _named_or_own(node.value) and attr in dict(base.items):
            return dict(base.items)[attr]  # `opts.evict` of `opts = SimpleNamespace(evict=True)`, `self.opts.evict`
        if attr == V.NUM_IN_FLIGHT_TOKENS and self._zeroed(base, attr):
            return Val.ZERO  # `req.num_in_flight_tokens = 0` earlier on this path: the boundary is lost
        fixed = _ATTRIBUTES.get(attr)
        if fixed is not None:
            return fixed
        if base == Val.POOL and attr in V.WHOLE_POOL_ATTRS:
            return Val.ids("*", "whole", "all", False, self.fn)
        if attr == V.REQ_TO_BLOCKS:
            return Val.BlockMap(base.groups if isinstance(base, Val.Manager) else "all")
        if attr == V.REQUEST_ID and Val.key_of(base) is not None:
            return Val.Rid(Val.identity(base))
        if attr in V.BLOCK_LIST_ATTRS and Val.key_of(base) is not None and not _unknown_item(base):
            return self.read_blocks(Val.identity(base), "all")
        if isinstance(base, Val.Ids):
            return base if attr in (V.BLOCK_ID_ATTR, "blocks") else None
        return self._named_attribute(attr, node)

    def _zeroed(self, base: Val.Value, attr: str) -> bool:
        """Whether the path set this counter of this request to 0 (and not again since)."""
        key = Val.key_of(base)
        current = self.current
        return (
            key is not None
            and current is not None
            and any(z[:2] in ((key, attr), ("*", attr)) for z in current.at_zero)
        )

    def _named_attribute(self, attr: str, node: cst.Attribute) -> Val.Value:
        """An attribute known by its name and its owner's: the pool's hash maps, a
        primitive, a method of `self`."""
        if attr in V.WHOLE_POOL_ATTRS and isinstance(node.value, (cst.Attribute, cst.Name)):
            owner = ir.called_name(node.value)
            if owner == V.BLOCK_POOL or attr in (V.CACHED_BLOCK_MAP, V.SECONDARY_HASHES):
                return Val.ids("*", "whole", "all", False, self.fn)
        if attr in V.EFFECTS or (attr == V.KV_MANAGER_FREE[1] and ir.called_name(node.value) == V.KV_MANAGER_FREE[0]):
            return Val.Primitive(attr)
        if isinstance(node.value, cst.Name) and node.value.value in ("self", "cls"):
            key = (id(self.fn), id(self.selves[-1] if self.selves else None), "self." + attr)
            if key not in self.names:
                target = self.resolve(("self", attr))
                cls = self.selves[-1] if self.selves else self.fn.class_info
                own = self.init_attribute(cls, attr) if cls is not None and node.value.value == "self" else None
                if own is None and cls is not None:  # `EVICT = "evict_blocks"` in the class body
                    text = class_string(cls, attr)
                    own = Val.Str(text) if text is not None else self._class_table(cls, attr)
                self.names[key] = Val.FunctionRef(*target) if target else own
            return self.names[key]
        if isinstance(node.value, cst.Name) and node.value.value[:1].isupper() and not attr.startswith("_"):
            return self._enum_member(node.value.value, attr)
        return None

    def _module_expression(self, name: str) -> Val.Value:
        """`EVICT = os.environ.get("FT_EVICT", "1") == "1"` at module level: its value with no
        variable set (a flag, a string, a number), `_reset = methodcaller(...)` (a callable),
        `_FINISH = {"abort": _abort}` (a table of functions); anything else unknown. Imported
        from another module of the project (`from requeue import requeue_dropping_stale`): read
        there, its names that module's."""
        defined = self._defining_module(name)
        if defined is None:
            return None
        info, local = defined
        source = module_expression(info, local)
        if source is None:
            return None
        value = self.evaluated_in(info, source)
        self._foreign_lambdas(value)
        kept = (Val.Bool, Val.Str, Val.Num, Val.MethodCaller, Val.Partial, Val.Lambda, Val.Table, Val.Instance)
        return value if isinstance(value, kept) else None

    def _class_table(self, cls: ClassInfo, attr: str) -> Val.Value:
        """`_release = {False: lambda s, rs: ..., True: _requeue}` (or `hooks = (_clear,)`) in
        the class body: the table or tuple, its names the module's (a lambda's effects go to
        the call)."""
        source = class_table(cls, attr)
        value = self.evaluated_in(cls.module, source) if source is not None else None
        if not (isinstance(value, (Val.Table, Val.Seq)) and _dispatches(value)):
            return None
        self._foreign_lambdas(value)
        return value

    def _foreign_lambdas(self, value: Val.Value) -> None:
        """The lambdas a value read from elsewhere holds (itself, a table's or tuple's items,
        nested too): their bodies lie in no tree of the file walked, so their effects are
        placed at the call."""
        for lam in _lambdas(value):
            self.foreign.add(id(lam.node))

    def evaluated_in(self, info: ModuleInfo, source: str) -> Val.Value:
        """The value of an expression written at the top of module `info` (its names that
        module's), with no local bound and no variable of the environment set."""
        self.stack.append((_module_frame(info), self.stack[-1][1]))  # names resolve in `info`
        try:
            return self.ev_pure(cst.parse_expression(source), State({}))
        finally:
            self.stack.pop()

    def _api_object(self, node: cst.BaseExpression) -> bool:
        """`sched.kv_cache_manager`, `getattr(sched, "kv_cache_manager", None)`, or a local
        bound once to one of them in this function: a vLLM object that is always there."""
        if isinstance(node, cst.Name):
            segment = self.fn.tree()
            text = segment.text if segment is not None else self.fn.module.text
            if not _api_binding(node.value).search(text):
                return False  # read off the text first: walking a big function's tree is slow
            body = self.fn.node.body if self.fn.node is not None else None
            bound = bound_once(body, node.value) if body is not None else None
            return bound is not None and self._api_object(bound)
        if isinstance(node, cst.Attribute):
            return node.attr.value in API_OBJECTS
        if isinstance(node, cst.Call) and ir.dotted_name(node.func) == "getattr" and len(node.args) >= 2:
            named = node.args[1].value
            return isinstance(named, cst.SimpleString) and named.evaluated_value in API_OBJECTS
        return False

    def _class_flag(self, cls: ClassInfo, attr: str) -> Val.Value:
        """A flag set in the body of `cls` or a base (`final = True` on a state class), unless
        one of them defines a handler (its switch is flipped from outside)."""
        project, handlers = self.interp.project, set(self.interp.fault_paths.handler_class_names())
        order = project.mro(cls)
        if any(each.name in handlers for each in order):
            return None
        flag = class_flag(order, attr)
        return Val.Bool(flag) if flag is not None else None

    def _enum_member(self, owner: str, attr: str) -> Val.Value:
        """`Phase.SCAN` where `Phase` is a project enum (a class with `Enum`, `IntEnum`, ...
        among its bases, its own or inherited) and `SCAN` not one of its methods."""
        info = self.fn.module
        key = ("enum", id(info), owner, attr)
        if key not in self.names:
            imported = info.imports.get(owner)
            outside = imported is not None and imported.level == 0 and imported.module.split(".")[0] == "vllm"
            cls = None if outside else self.interp.project.resolve_class(info, owner)
            project = self.interp.project
            is_enum = cls is not None and any(
                base.rsplit(".", 1)[-1] in _ENUM_BASES for each in project.class_chain(cls) for base in each.bases
            )
            member = is_enum and cls is not None and project.method(cls, attr) is None
            self.names[key] = (
                Val.Member(f"{cls.qualname}.{attr}", class_string(cls, attr)) if member and cls is not None else None
            )
        return self.names[key]

    def init_attribute(self, cls: ClassInfo, attr: str) -> Val.Value:
        """`self.attr` of an instance of `cls` when its `__init__` alone sets it, once, to a
        value the walk can compute there (`self.steps = [self._evict, self._abort]`, a table of
        bound methods, a helper object): that value; None otherwise."""
        found = init_assignment(self.interp.project.class_chain(cls), attr)
        if found is None:
            return self.built_in_init(cls, attr)
        init, value = found
        given = defaults(init)  # as constructed with the required arguments only (`FaultHandler(engine)`)
        env: dict[str, Val.Value] = {p: given.get(p) for p in init.params}
        current = self.current
        self.stack.append((init, None))
        self.selves.append(cls)
        try:
            found_value = self.ev_pure(value, State(env))
        finally:
            self.selves.pop()
            self.stack.pop()
            self.current = current
        # what dispatches (callables, tables and lists of them, helper objects); a flag or a
        # number may be set from outside the class (a switch a deployment flips): unknown,
        # unless held in a namespace whose fields no module of the class assigns
        if _dispatches(found_value) or _transitions(found_value) or isinstance(found_value, _GROUPS):
            self._foreign_lambdas(found_value)
            return found_value
        return settled_fields(self.interp.project.class_chain(cls), value, found_value)

    def read_blocks(self, key: str | None, groups: str) -> Val.Ids:
        freed = self.current.freed_keys() if self.current is not None else set()
        stale = key is not None and (key in freed or "*" in freed)
        return Val.ids(key or "*", "whole", groups, stale, self.fn)

    def collection(self, values: Sequence[Val.Value]) -> Val.Value:
        ids = [v for v in values if isinstance(v, Val.Ids)]
        if ids:
            value = ids[0]
            for other in ids[1:]:
                value = Val.join_ids(value, other)
            return value
        if not values:
            return Val.ids(None, "empty")
        if all(isinstance(v, Val.Running) for v in values):
            return Val.SOME_RUNNING if any(map(Val.some_of, values)) else Val.RUNNING
        return Val.Seq(tuple(values))

    # -- subscripts ----------------------------------------------------------------------------
    def subscript(self, node: cst.Subscript, state: State) -> Results:
        out: Results = []
        element = node.slice[0].slice if len(node.slice) == 1 else None
        for base, s in self.ev(node.value, state):
            self.current = s
            if isinstance(element, cst.Slice):
                parts = [element.lower, element.upper, element.step]
                for (lower, upper, _), s2 in self.ev_seq([p or cst.Name("None") for p in parts], s):
                    sliced = self._slice(base, element.lower is not None, lower, upper)
                    if isinstance(base, Val.Running) and self._leaves_out(element, s2):
                        sliced = Val.SOME_RUNNING
                    if isinstance(base, Val.Managers) and element.lower is None and literal_one(element.upper):
                        sliced = FIRST_GROUP_ONLY  # `managers[:1]`
                    out.append((sliced, s2))
                continue
            if not isinstance(element, cst.Index):
                out.append((base if isinstance(base, Val.Ids) else None, s))
                continue
            for index, s2 in self.ev(element.value, s):
                self.current = s2
                if (
                    isinstance(index, Val.Rid)
                    and index.key is not None
                    and isinstance(node.value, cst.Attribute)
                    and node.value.attr.value == V.SCHEDULER_REQUESTS
                ):
                    out.append((Val.Req(index.key), s2))  # `scheduler.requests[request_id]`: that request
                    continue
                if isinstance(base, Val.Ids) and _filters_values(node.value, element.value):
                    out.append((base, s2))  # `flat[flat > 0]`: the ids but the null block's
                    continue
                out.append((self._index(base, element.value, index), s2))
        return out

    def _leaves_out(self, element: cst.Slice, state: State) -> bool:
        """`running[:-1]`, `running[:len(running) - 1]`, `running[1:]`: a slice of the running
        requests that leaves one out however many there are (bounds the walk cannot compute,
        `running[i:i + n]`: every request, as before)."""
        lower, upper = element.lower, element.upper
        if lower is not None and _positive(lower):
            return True
        if isinstance(upper, cst.UnaryOperation) and isinstance(upper.operator, cst.Minus):
            return _positive(upper.expression)
        return (
            isinstance(upper, cst.BinaryOperation)
            and isinstance(upper.operator, cst.Subtract)
            and _positive(upper.right)
            and isinstance(upper.left, cst.Call)
            and ir.called_name(upper.left.func) == "len"
            and len(upper.left.args) == 1
            and isinstance(self.ev_pure(upper.left.args[0].value, state), Val.Running)
        )

    def _slice(self, base: Val.Value, has_lower: bool, lower: Val.Value, upper: Val.Value) -> Val.Value:
        if isinstance(base, Val.Running):
            return base
        if not isinstance(base, Val.Ids) or base.start != "whole":
            return base if isinstance(base, Val.Ids) else None
        end = _SLICE_ENDS.get(Val.num_kind(upper) or "")
        if end is not None:
            return Val.with_start(base, end)
        if not has_lower:
            return base
        return Val.with_start(base, Val.start_from_index(Val.num_kind(lower)))

    def _index(self, base: Val.Value, index_node: cst.BaseExpression, index: Val.Value) -> Val.Value:
        if isinstance(index, Val.SliceOf):  # `blocks[tail]` with `tail = slice(start, None)`
            return self._slice(base, index.has_lower, index.lower, index.upper)
        if base is None or (isinstance(base, Val.Ids) and isinstance(index, Val.Ids)):
            return index if isinstance(index, Val.Ids) else None  # `pool.blocks[block_id]`: its block
        if isinstance(base, Val.Zeros):
            return Val.ZERO  # `zeros[i]`
        if isinstance(base, Val.BlockMap):
            return self.read_blocks(Val.key_of(index), base.groups)
        if isinstance(base, Val.Managers):  # `managers[0]`, `managers[FULL]` (a module-level int): one group
            one = isinstance(index_node, cst.Integer) or (
                isinstance(index_node, cst.Name) and index_node.value.isupper() and isinstance(index, Val.Num)
            )
            return Val.Manager("first" if one else "all")
        if isinstance(base, Val.Running):
            every = isinstance(index, Val.Index) and isinstance(index.of, Val.Running) and index.start == "whole"
            in_while = bool(self.loop_nodes) and self.loop_nodes[-1] in self.while_loops
            if in_while and isinstance(index_node, cst.Name):
                # `running[i]`, i a while counter over the queue: one request per pass, however
                # often `reqs[i]` is read in it
                return self.new_request(index_node, f"{self.loop_nodes[-1]}:{index_node.value}")
            if in_while and _integer(index_node) and self.loop_nodes[-1] in self.popping_loops:
                # `while running: req = running[-1]; ...; running.pop()`: another request each pass
                return self.new_request(index_node, f"{self.loop_nodes[-1]}:{ir.code_of(index_node)}")
            if every:  # `running[i]`, i over every position of the queue (a range to its length)
                return self.new_request(index_node)
            if isinstance(index_node, cst.Name) and self.loop_nodes:  # `reqs[i]` read again in this loop: one request
                return Val.Req(f"at:{index_node.value}:{self.loop_nodes[-1]}")
            return Val.Req(f"at:{id(index_node)}")
        if isinstance(base, Val.Table):
            return _entry(base, index)
        if isinstance(base, Val.Seq) and isinstance(index_node, cst.Integer):  # `divmod(a, b)[0]`
            at = int(index_node.value, 0)
            return base.items[at] if at < len(base.items) else None
        if isinstance(base, Val.Keyed):
            return base.values
        if isinstance(base, Val.Ids):
            return self._index_ids(base, index_node, index)
        return index if isinstance(index, Val.Ids) else None  # `pool.blocks[block_id]` for each id

    def _index_ids(self, base: Val.Ids, index_node: cst.BaseExpression, index: Val.Value) -> Val.Value:
        """`blocks[i]` of a request's blocks: from a position, the first group's, the last
        block, a mask over positions; else where it starts is unknown."""
        if isinstance(index, Val.Index):
            return Val.with_start(base, index.start) if base.start == "whole" else base
        if isinstance(index_node, cst.Integer):
            return Val.Ids(base.key, base.start, "first", base.stale, base.origin) if index_node.value == "0" else base
        if _last_item(index_node) and base.start == "whole":
            return Val.with_start(base, "late")  # `blocks[-1]`: the last block, not the tail's first
        lower = self._mask_start(index_node)
        if lower is not None and base.start == "whole" and self.current is not None:
            # `ids[np.arange(ids.size) >= first]`: as `ids[first:]`
            return self._slice(base, True, self.ev_pure(lower, self.current), Val.NONE)
        return Val.with_start(base, "unknown")

    def _mask_start(self, node: cst.BaseExpression, bound: bool = False) -> cst.BaseExpression | None:
        """The position a boolean mask over an array's positions starts at: `np.arange(n) >=
        first` (`first <= arange(n)`, `arange(n)[None, :] >= first[:, None]`, and'ed with
        another mask, or a local bound once to one); None for another index."""
        if isinstance(node, cst.Name) and not bound and self.fn.node is not None:
            found = bound_once(self.fn.node.body, node.value)
            return self._mask_start(found, True) if found is not None else None
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitAnd):
            return self._mask_start(node.left, True) or self._mask_start(node.right, True)
        if not (isinstance(node, cst.Comparison) and len(node.comparisons) == 1):
            return None
        operator, right = node.comparisons[0].operator, node.comparisons[0].comparator
        if isinstance(operator, cst.GreaterThanEqual) and _positions(node.left):
            return _broadcast_base(right)
        if isinstance(operator, cst.LessThanEqual) and _positions(right):
            return _broadcast_base(node.left)
        return None

    # -- comprehensions and loop elements ------------------------------------------------------
    def comprehension(
        self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp, state: State
    ) -> Results:
        each = self._over_callables(node, state)
        if each is not None:
            return each
        self.loops.append([])
        self.loop_nodes.append(id(node))
        env_before = state.env
        clauses = []
        clause: cst.CompFor | None = node.for_in
        while clause is not None:
            clauses.append(clause)
            clause = clause.inner_for_in
        states = [state]
        dropped = some = False
        one_item = len(clauses) == 1  # over a literal `[req]`: the list of one element
        for clause in clauses:
            nxt = []
            for iterable, s in self.ev_all(clause.iter, states):
                one_item = one_item and isinstance(iterable, Val.Seq) and len(iterable.items) == 1
                self.current = s
                element = self.element(iterable, clause, clause.target, [c.test for c in clause.ifs])
                s = self.assign(clause.target, element, s)
                if Val.some_of(iterable):  # over part of the running requests: it skips the others
                    s, some = skipping(s, id(clause)), True
                for condition in clause.ifs:
                    if self.drops_by_length(condition.test, s):
                        dropped = True
                    if isinstance(iterable, Val.Running) and phase_test(condition.test):
                        # `[r for r in running if r.num_output_tokens > 0]`: decoding ones only
                        s, some = skipping(s, id(clause)), True
                    s = self.ev(condition.test, s)[-1][1]
                nxt.append(s)
            states = nxt
        made: Results
        if isinstance(node, cst.DictComp):  # each entry as a (key, value) pair
            made = [(Val.Seq(pair), s) for pair, s in self.ev_seq_all([node.key, node.value], states)]
        else:
            made = self.ev_all(node.elt, states)
        born = self.loops.pop()
        self.loop_nodes.pop()
        out: Results = []
        for value, s in made:
            if isinstance(value, Val.Instance) and value.oid and born:
                value = _as_record(value, s)  # `[Victim(r) for r in reqs]`: one object per request
            result = _made(value, born, dropped, one_item, some)
            if isinstance(node, cst.DictComp) and isinstance(value, Val.Seq):
                # what its values make (block ids: the dict reads as them), else a dict with an
                # entry per request (`{r.request_id: boundary for r in reqs}`)
                result = _made(value.items[1], born, dropped, one_item, some) or (
                    Val.PerRequest(result) if isinstance(result, Val.Each) else None
                )
            s = promote([s], born, len(self.loops))[0]
            out.append((result, s.replace(env={**env_before, **heap_of(s.env)})))  # objects made keep their fields
        return out

    def _over_callables(
        self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp, state: State
    ) -> Results | None:
        """`[fn(**kwargs) for fn in receivers]` over a short literal sequence of callables:
        each called in turn, in order (as a `for` loop over them runs); None otherwise."""
        clause = node.for_in
        if isinstance(node, cst.DictComp) or clause.inner_for_in is not None or clause.ifs:
            return None
        sources = self.ev(clause.iter, state)
        if not all(
            isinstance(v, Val.Seq) and 0 < len(v.items) <= UNROLLED and all(map(Val.is_callable, v.items))
            for v, _ in sources
        ):
            return None
        out: Results = []
        for iterable, s in sources:
            paths: list[tuple[tuple[Val.Value, ...], State]] = [((), s)]
            for item in cast(Val.Seq, iterable).items:
                paths = [
                    ((*made, value), after)
                    for made, current in paths
                    for value, after in self.ev(node.elt, self.assign(clause.target, item, current))
                ][:MAX_STATES]
            out.extend((Val.Seq(made), after.replace(env={**s.env, **heap_of(after.env)})) for made, after in paths)
        return out

    def drops_by_length(self, test: cst.BaseExpression, state: State) -> bool:
        """`b.block_id < len(blocks)` with `blocks` one request's block list: a block id is an
        index into the pool, not into the request's list, so the filter drops ids (the
        tail's among them). Against the pool's length it drops nothing (a defensive check)."""
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            return self.drops_by_length(test.left, state) or self.drops_by_length(test.right, state)
        if not isinstance(test, cst.Comparison):
            return False
        operands = [test.left, *(pair.comparator for pair in test.comparisons)]
        for index, pair in enumerate(test.comparisons):  # also `0 <= bid < len(blocks)`
            left, right = operands[index], operands[index + 1]
            if not isinstance(pair.operator, (cst.LessThan, cst.LessThanEqual)):
                continue
            if not (isinstance(right, cst.Call) and ir.called_name(right.func) == "len" and len(right.args) == 1):
                continue
            is_id = isinstance(left, cst.Attribute) and left.attr.value == V.BLOCK_ID_ATTR
            if not (is_id or isinstance(self.ev_pure(left, state), Val.Ids)):  # a block id
                continue
            blocks = self.ev_pure(right.args[0].value, state)
            if isinstance(blocks, Val.Ids) and blocks.key not in (None, "*"):
                return True
        return False

    def element(
        self,
        iterable: Val.Value,
        node: cst.CSTNode,
        target: cst.BaseExpression | None,
        scope: Sequence[cst.CSTNode],
    ) -> Val.Value:
        """What the loop variable (or comprehension target) denotes on each iteration."""
        if iterable is None:
            # Another queue (`scheduler.waiting`, a list the walk cannot see into): its
            # items may be requests, but not the running ones.
            return Val.Req(f"q:{id(node)}")
        if isinstance(iterable, Val.Running):
            return self.new_request(node)
        if isinstance(iterable, Val.PerRequest):  # `for rid in by_request:`: its keys
            key = iterable.entry.template.items[0] if isinstance(iterable.entry.template, Val.Seq) else None
            return self.element(Val.Each(key, iterable.entry.born), node, target, scope)
        if isinstance(iterable, Val.Each):  # the element made for each request, for this loop's request
            fresh = self.new_request(node).key
            template = iterable.template
            for old in iterable.born:
                template = Val.rekey(template, old, fresh)
            return template
        if isinstance(iterable, Val.Ids):
            counted = self._counter_filter(scope)
            return Val.with_start(iterable, counted) if counted and iterable.start == "whole" else iterable
        if isinstance(iterable, Val.Managers):
            return Val.Manager("all")
        if isinstance(iterable, Val.Zeros):
            return Val.ZERO
        if isinstance(iterable, (Val.Enumerated, Val.Range)):
            return self._position(iterable, node, target, scope)
        if isinstance(iterable, Val.Zipped):
            return self._zipped(iterable, node, scope)
        return _item(iterable)

    def _zipped(self, iterable: Val.Zipped, node: cst.CSTNode, scope: Sequence[cst.CSTNode]) -> Val.Value:
        """`for mgr, blocks in zip(managers, per_group)`: the tuple of each part's element; zipped
        with a literal tuple of one item (`zip(managers, (block_size,))`), only the first group."""
        short = any(isinstance(p, Val.Seq) and len(p.items) == 1 for p in iterable.parts)
        items: list[Val.Value] = []
        for part in iterable.parts:
            if part is None:
                return None  # an iterable it cannot see into: its elements are unknown
            item = self.element(part, node, None, scope)
            if short and isinstance(item, Val.Manager):
                item = Val.Manager("first")
            items.append(item)
        return Val.Seq(tuple(items))

    def _position(
        self,
        iterable: Val.Enumerated | Val.Range,
        node: cst.CSTNode,
        target: cst.BaseExpression | None,
        scope: Sequence[cst.CSTNode],
    ) -> Val.Value:
        """`for i, b in enumerate(blocks)`, `for i in range(n)`: an index over positions,
        from where the loop's index filter (`if i < first: continue`) starts it."""
        names = target_names(target)
        filtered = self.index_filter(names[0], scope) if names else None
        if isinstance(iterable, Val.Enumerated):
            inner = self.element(iterable.of, node, None, scope)
            if not isinstance(inner, Val.Ids):
                return Val.Seq((Val.OTHER, inner))
            index = Val.Index(inner, filtered or "whole")
            if filtered is not None and inner.start == "whole":
                inner = Val.with_start(inner, filtered)
            return Val.Seq((index, inner))
        stop = iterable.stop
        start = iterable.start if filtered is None else filtered
        if isinstance(stop, Val.Length) and isinstance(stop.of, Val.Ids):
            return Val.Index(stop.of, start)
        if isinstance(stop, Val.Length) and isinstance(stop.of, (Val.Managers, Val.Running)):
            return Val.Index(stop.of, "whole")
        if start in ("tail", "late", "early"):  # `range(first, last)`: from where it starts
            return Val.Index(None, start)
        return Val.OTHER

    def _counter_filter(self, scope: Sequence[cst.CSTNode]) -> str | None:
        """`pos = 0; for blk in row: if pos >= first: ...; pos += 1`: a position counted by
        hand, filtered as an index is (index_filter); None without one."""
        state = self.current
        if state is None:
            return None
        for name in counted_names(scope):
            if isinstance(state.env.get(name), Val.Num):  # bound before the loop (`pos = 0`)
                found = self.index_filter(name, scope)
                if found is not None:
                    return found
        return None

    def index_filter(self, name: str, scope: Sequence[cst.CSTNode]) -> str | None:
        """Where an index filter (`if i < first: continue`, `if i >= first`) starts the
        range: the kind of number it compares the index with; None without a filter."""
        found = None
        derived = derived_names(name, scope)
        for node in scope:
            for comparison in comparisons(node):
                operands = [comparison.left, *(c.comparator for c in comparison.comparisons)]
                if not any(isinstance(c.operator, _COMPARE_OPS) for c in comparison.comparisons):
                    continue
                if not any(isinstance(o, cst.Name) and o.value == name for o in operands):
                    if found is None and any(derived & names_in(o) for o in operands):
                        # `end = (i + 1) * block_size; if end > confirmed:`: a filter on a
                        # number made from the position, not modelled: where it starts is unknown
                        found = "unknown"
                    continue
                for operand in operands:
                    if not (isinstance(operand, cst.Name) and operand.value == name):
                        found = Val.start_from_index(Val.num_kind(self.ev_pure(operand, self.current or State({}))))
        return found

    def new_request(self, node: cst.CSTNode, name: str | None = None) -> Val.Req:
        key = f"it:{name or id(node)}"
        if self.loops and key not in self.loops[-1]:
            self.loops[-1].append(key)
        return Val.Req(key)


def _entry(table: Val.Table, index: Val.Value) -> Val.Value:
    """`table[key]`. A key the walk cannot compute (`ops[computed](...)`,
    `{True: self._resume, False: self._abort}[bool(flag)](...)`) picks one of the table's
    callables (calling a non-callable entry such as `"skip": None` raises); each is a path,
    as `if flag:` forks."""
    constant = Val.constant(index)
    unknown_keys = any(isinstance(k, str) and k.startswith(Val.UNKNOWN_KEY) for k, _ in table.items)
    if constant is not None and not unknown_keys:
        return dict(table.items).get(constant)
    options: list[Val.Value] = []
    for _, value in table.items:
        if _dispatches(value) and value not in options:
            options.append(value)
    return options[0] if len(options) == 1 else Val.Either(tuple(options)) if options else None


def _item(iterable: Val.Value) -> Val.Value:
    """The loop element of a tuple of values or of a table's items."""
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


def made_by_loop(value: Val.Value, born: list[str], some: bool) -> Val.Value:
    """What a loop over requests made of `value`, its element for each (`map(f, reqs)`)."""
    return _made(value, born, False, False, some)


def _as_record(made: Val.Instance, state: State) -> Val.Instance:
    """An object made in a comprehension's element, its attributes as its `__init__` left them
    (on `state`) held as a record's fields: what the comprehension makes is one per item, each
    with that item's values (no heap cell: those would be the last item's)."""
    prefix = cell(made, "")
    fields = tuple((name[len(prefix) :], value) for name, value in state.env.items() if name.startswith(prefix))
    return Val.Instance(made.cls, fields) if fields else made


def _made(value: Val.Value, born: list[str], dropped: bool, one_item: bool, some: bool = False) -> Val.Value:
    """What a comprehension makes of the values of its element expression (`some`: over part
    of the running requests)."""
    if isinstance(value, Val.Ids):
        result = Val.with_key(value, "partial" if some else "*") if value.key in born else value
        if dropped and result.start in ("tail", "unknown", "whole", "early"):
            result = Val.with_start(result, "dropped")
        return result
    if isinstance(value, Val.Req) and not _unknown_item(value):
        return Val.SOME_RUNNING if some else Val.RUNNING
    if isinstance(value, Val.Rid) and value.key in born:  # `[r.request_id for r in reqs]`
        return Val.Each(value, tuple(born), some)
    if isinstance(value, Val.Instance) and value.oid and not value.fields and not born:
        # `[Worker(m, ...) for m in managers]`: objects of a class whose `__init__` was walked (not
        # records), one made per item: each as the one the walk made
        return Val.Seq((value,))
    if isinstance(value, (Val.Seq, Val.Instance)) and born and Val.mentions(value, born):
        # `[(r, r.num_computed_tokens - ...) for r in reqs]`: each element is this tuple,
        # made for one request of the loop
        return Val.Each(value, tuple(born), some)
    if isinstance(value, Val.Seq) and one_item:
        return Val.Seq((value,))
    return None


def arithmetic(operator: cst.BaseBinaryOp, left: Val.Value, right: Val.Value) -> Val.Value:
    """`left <op> right` on block ids (set difference and union) and token / block counts
    (the confirmed boundary and the block it falls in)."""
    if isinstance(left, Val.Ids) and isinstance(right, Val.Ids):
        return Val.difference(left, right) if isinstance(operator, cst.Subtract) else Val.join_ids(left, right)
    if isinstance(left, Val.Str) and isinstance(right, Val.Str) and isinstance(operator, cst.Add):
        return Val.Str(left.text + right.text)  # `"_op_" + op.value`
    lk, rk = Val.num_kind(left), Val.num_kind(right)
    if isinstance(operator, cst.Subtract):
        return _subtract(left, lk, rk)
    if isinstance(operator, cst.Modulo) and lk == "confirmed":
        return Val.Num("rem")
    if isinstance(operator, cst.FloorDivide) and lk == "cpad":
        return Val.Num("cceil")  # `(confirmed + block_size - 1) // block_size`: rounded up
    if isinstance(operator, cst.FloorDivide) and lk in ("confirmed", "computed", "early-token", "neg-confirmed"):
        return Val.Num(
            {"confirmed": "cblk", "computed": "kblk", "early-token": "early", "neg-confirmed": "neg-cceil"}[lk]
        )
    if isinstance(operator, cst.Divide) and lk == "confirmed":
        return Val.Num("cratio")  # `confirmed / block_size`: `math.ceil` / `math.floor` make it a block index
    if isinstance(operator, cst.Multiply) and "cblk" in (lk, rk):
        return Val.Num("confirmed")
    if isinstance(operator, cst.Multiply) and "kblk" in (lk, rk):
        return Val.Num("computed")
    if isinstance(operator, cst.Add) and rk == "zero":
        return left
    if isinstance(operator, cst.Add) and {lk, rk} == {"confirmed", "bs"}:
        return Val.Num("cpad")
    return Val.OTHER if lk is not None or rk is not None else None


def _subtract(left: Val.Value, lk: str | None, rk: str | None) -> Val.Value:
    if lk == "cpad" and rk in ("other", "zero"):
        return left  # `confirmed + block_size - 1`
    if isinstance(left, Val.Length) and isinstance(left.of, Val.Ids) and rk in ("cblk", "early", "kblk"):
        # `len(blocks) - first`: how many blocks from `first` to the end
        return Val.Num(f"count-{rk}")
    if (lk, rk) in (("computed", "inflight"), ("confirmed", "rem")):
        return Val.Num("confirmed")
    if lk == "cblk" and rk not in (None, "zero"):
        return Val.Num("early")
    if lk == "confirmed" and rk not in (None, "zero", "rem"):
        return Val.Num("early-token")
    if rk == "zero":
        return left
    return Val.OTHER if lk is not None or rk is not None else None


#: `managers[:1]`, `islice(managers, 1)`: the first KV-cache group's manager alone
FIRST_GROUP_ONLY = Val.Seq((Val.Manager("first"),))


#: block ids left empty by an option that is off (`tails() if flag else set()`): they cover no request
OFF = Val.ids("#off", "empty")


def _empty_literal(node: cst.BaseExpression) -> bool:
    """`set()`, `frozenset()`, `[]`, `()`, `{}`-less literals of no item."""
    if isinstance(node, cst.Call):
        return not node.args and ir.called_name(node.func) in ("set", "frozenset", "list", "tuple")
    return isinstance(node, (cst.List, cst.Tuple)) and not node.elements


def literal_one(node: cst.BaseExpression | None) -> bool:
    """The integer literal 1."""
    return isinstance(node, cst.Integer) and node.value == "1"


def _positive(node: cst.BaseExpression) -> bool:
    """A positive integer literal."""
    return isinstance(node, cst.Integer) and node.evaluated_value > 0


def _unknown_item(value: Val.Value) -> bool:
    """An item of a collection the walk cannot see into: maybe a request, maybe not."""
    return isinstance(value, Val.Req) and value.key.startswith("q:")


def _last_item(node: cst.BaseExpression) -> bool:
    """`-1` as an index."""
    return (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
        and node.expression.value == "1"
    )


def _dispatches(value: Val.Value) -> bool:
    """A callable or a project object, or a table or list of them: what a dispatch picks."""
    if isinstance(value, Val.Seq):
        return bool(value.items) and all(_dispatches(item) for item in value.items)
    if isinstance(value, Val.Table):
        return bool(value.items) and all(_dispatches(item) for _, item in value.items)
    return Val.is_callable(value) or isinstance(value, Val.Instance)


#: KV-cache groups an `__init__` keeps (`self._manager = kv.coordinator.single_type_managers[0]`)
_GROUPS = (Val.Manager, Val.Managers)


def _transitions(value: Val.Value) -> bool:
    """`{State.EVICT: (self._evict, State.ABORT), State.ABORT: State.DONE}`: a table whose
    values are states (enum members, strings), what dispatches, or tuples of them."""
    return isinstance(value, Val.Table) and bool(value.items) and all(_state_entry(item) for _, item in value.items)


def _state_entry(value: Val.Value) -> bool:
    if isinstance(value, Val.Seq):
        return bool(value.items) and all(map(_state_entry, value.items))
    return isinstance(value, (Val.Member, Val.Str)) or _dispatches(value)


def _lambdas(value: Val.Value) -> list[Val.Lambda]:
    """`value` if a lambda, and the lambdas in it as a table or a list (nested ones too)."""
    if isinstance(value, Val.Lambda):
        return [value]
    items = [v for _, v in value.items] if isinstance(value, Val.Table) else []
    items = list(value.items) if isinstance(value, Val.Seq) else items
    return [lam for item in items for lam in _lambdas(item)]


_MODULE_FRAMES: dict[int, tuple[ModuleInfo, Function]] = {}


def _module_frame(info: ModuleInfo) -> Function:
    """A frame standing for the top of module `info`: its names resolve there, and a function
    of the module called from it is no recursive call (as it would be from that function)."""
    known = _MODULE_FRAMES.get(id(info))
    if known is None or known[0] is not info:
        top = cst.parse_module("def _module_(): pass\n").body[0]
        frame = Function(info, "<module>", "<module>", None, cast(cst.FunctionDef, top), (), False, False)
        if len(_MODULE_FRAMES) > 512:  # an editor's session parses new modules on each edit
            _MODULE_FRAMES.clear()
        known = _MODULE_FRAMES[id(info)] = (info, frame)
    return known[1]


def _filters_values(array: cst.BaseExpression, index: cst.BaseExpression) -> bool:
    """`flat[flat > 0]` (`flat != 0`): a mask on the array's own values (block ids), which
    keeps every position whose id is not the null block's."""
    if not (isinstance(index, cst.Comparison) and len(index.comparisons) == 1):
        return False
    operator, right = index.comparisons[0].operator, index.comparisons[0].comparator
    named = ir.dotted_name(array)
    return (
        named is not None
        and ir.dotted_name(index.left) == named
        and isinstance(right, cst.Integer)
        and right.value == "0"
        and isinstance(operator, (cst.GreaterThan, cst.NotEqual))
    )


def _positions(node: cst.BaseExpression) -> bool:
    """`np.arange(n)` (`torch.arange`), also broadcast (`np.arange(n)[None, :]`)."""
    node = _broadcast_base(node)
    return isinstance(node, cst.Call) and ir.called_name(node.func) == "arange"


def _broadcast_base(node: cst.BaseExpression) -> cst.BaseExpression:
    """`first[:, None]` / `cols[None, :]`: the array broadcast (`first`, `cols`)."""
    if isinstance(node, cst.Subscript) and any(
        isinstance(el.slice, cst.Index) and isinstance(el.slice.value, cst.Name) and el.slice.value.value == "None"
        for el in node.slice
    ):
        return node.value
    return node


def _plan_like(value: Val.Value) -> bool:
    """A literal tuple or list (an empty one reads as empty ids)."""
    return isinstance(value, Val.Seq) or Val.is_empty_ids(value)


def _same_effects(a: State, b: State) -> bool:
    """No eviction, free or counter change between two states of one path."""
    return (a.evicted, a.freed, a.pending, a.zeroed, a.at_zero) == (b.evicted, b.freed, b.pending, b.zeroed, b.at_zero)


def _named_or_own(node: cst.BaseExpression) -> bool:
    """`opts` or `self.opts`."""
    return isinstance(node, cst.Name) or (isinstance(node, cst.Attribute) and _is_self(node.value))


def _is_self(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"
