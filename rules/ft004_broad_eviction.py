"""FT004 broad-eviction."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst
from ftlint import matchers as m

from ftlint import ir
from ftlint import vocabulary as V
from ftlint.rule import Invalid, Rule, Valid

# Taint of a value (None: clean).
ZERO = "zero"  # the literal 0 (a start token of 0 zeroes every block)
LENGTH = "length"  # len() of a whole block list
IDX = "index"  # an index that runs over every position of a whole block list
MAP = "map"  # `req_to_blocks`: request id -> that request's whole block list
WHOLE = "whole"  # every block (or block id) of a request
_RANK = {None: 0, ZERO: 0, LENGTH: 0, IDX: 1, MAP: 2, WHOLE: 3}
_SCALARS = (None, ZERO, LENGTH)

# An index filter compares the index: `i < first`, `i >= boundary`, `i == last`.
_INDEX_FILTER = m.LessThan() | m.LessThanEqual() | m.GreaterThan() | m.GreaterThanEqual() | m.Equal() | m.NotEqual()
_TRIVIAL_LOWER = m.Integer("0") | m.Name("None")
_LEN = m.Call(func=m.Name("len"))
# Calls that pass the elements of their arguments through.
_PASSTHROUGH = frozenset(
    {"list", "set", "tuple", "frozenset", "sorted", "reversed", "iter", "filter", "map", "zip", "chain", "from_iterable"}
)
# Methods of a block list that do not return blocks.
_SCALAR_METHODS = frozenset({"index", "count", "__len__"})
# Methods of `req_to_blocks` (a dict of request id -> blocks) that return block lists.
_MAP_LOOKUPS = frozenset({"get", "pop", "setdefault", "values", "items", "__getitem__"})
# Methods that add their argument to the receiver.
_COLLECTING_METHODS = frozenset({"append", "add", "extend", "update", "insert", "appendleft", "setdefault", "__ior__"})

State = dict  # name (or dotted name) -> taint


def join(a: Optional[str], b: Optional[str]) -> Optional[str]:
    if a == b:
        return a
    if a in _SCALARS and b in _SCALARS:
        return None  # a 0 (or a length) on only one path is not known to be one
    return a if _RANK[a] >= _RANK[b] else b


def union(a: State, b: State) -> State:
    return {k: join(a.get(k), b.get(k)) for k in a.keys() | b.keys()}


@dataclass
class Result:
    returns_whole: bool = False
    sinks: dict = field(default_factory=dict)  # id(Call) -> (Call, message)


class BroadEvictionAnalysis:
    """A small taint analysis of one function: does a whole block list (or a 0 start
    token) reach an eviction? Helpers are analysed with the taint of their arguments."""

    def __init__(self, paths) -> None:
        self.paths = paths
        self._cache: dict = {}

    def analyze(self, fn, seeds: frozenset = frozenset()) -> Result:
        key = (fn, seeds)
        if key in self._cache:
            return self._cache[key] or Result()  # None while in progress: recursion is opaque
        self._cache[key] = None
        walker = _Walker(self, fn)
        state: State = {param: taint for param, taint in seeds}
        walker.suite(fn.node.body, state)
        self._cache[key] = walker.result
        return walker.result


def _names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, (cst.Name, cst.Attribute)):
        dotted = ir.dotted_name(target)
        return [dotted] if dotted else []
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in _names(el.value)]
    if isinstance(target, cst.StarredElement):
        return _names(target.value)
    return []


def _compares(name: str, nodes) -> bool:
    """Whether any of these nodes compares `name` (an index filter against a boundary)."""
    for node in nodes:
        for comparison in m.findall(node, m.Comparison()):
            operands = [comparison.left, *(c.comparator for c in comparison.comparisons)]
            if not any(m.matches(c.operator, _INDEX_FILTER) for c in comparison.comparisons):
                continue
            for operand in operands:
                if m.matches(operand, m.Name(name)) or m.findall(operand, m.Name(name)):
                    return True
    return False


def _positional(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None and a.star == ""]


class _Walker:
    def __init__(self, analysis: BroadEvictionAnalysis, fn) -> None:
        self.analysis = analysis
        self.fn = fn
        self.result = Result()

    # -- statements ------------------------------------------------------------
    def suite(self, suite: Optional[cst.CSTNode], state: State) -> State:
        if suite is None:
            return state
        if isinstance(suite, cst.SimpleStatementSuite):
            for small in suite.body:
                self.small(small, state)
            return state
        for statement in getattr(suite, "body", ()):
            state = self.statement(statement, state)
        return state

    def statement(self, node: cst.CSTNode, state: State) -> State:
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                self.small(small, state)
            return state
        if isinstance(node, cst.If):
            self.expr(node.test, state)
            body = self.suite(node.body, dict(state))
            if isinstance(node.orelse, cst.If):
                other = self.statement(node.orelse, dict(state))
            elif isinstance(node.orelse, cst.Else):
                other = self.suite(node.orelse.body, dict(state))
            else:
                other = state
            return union(body, other)
        if isinstance(node, cst.For):
            taint = self.expr(node.iter, state)
            current = dict(state)
            for _ in range(2):  # a second pass sees what the first one collected
                inside = dict(current)
                self.bind_iteration(node.target, node.iter, taint, inside, [node.body])
                current = union(current, self.suite(node.body, inside))
            return self.suite(node.orelse.body, current) if node.orelse else current
        if isinstance(node, cst.While):
            current = dict(state)
            for _ in range(2):
                self.expr(node.test, current)
                current = union(current, self.suite(node.body, dict(current)))
            return self.suite(node.orelse.body, current) if node.orelse else current
        if isinstance(node, (cst.Try, cst.TryStar)):
            body = self.suite(node.body, dict(state))
            ends = [self.suite(node.orelse.body, dict(body)) if node.orelse else body]
            entry = union(state, body)
            for handler in node.handlers:
                ends.append(self.suite(handler.body, dict(entry)))
            result = ends[0]
            for end in ends[1:]:
                result = union(result, end)
            return self.suite(node.finalbody.body, result) if node.finalbody else result
        if isinstance(node, cst.With):
            for item in node.items:
                taint = self.expr(item.item, state)
                if item.asname is not None:
                    self.bind(item.asname.name, taint, state)
            return self.suite(node.body, state)
        if isinstance(node, cst.Match):
            self.expr(node.subject, state)
            result = dict(state)
            for case in node.cases:
                result = union(result, self.suite(case.body, dict(state)))
            return result
        return state  # nested FunctionDef / ClassDef run elsewhere

    def small(self, node: cst.BaseSmallStatement, state: State) -> None:
        if isinstance(node, cst.Assign):
            taint = self.expr(node.value, state)
            for target in node.targets:
                self.assign(target.target, taint, state)
        elif isinstance(node, cst.AnnAssign):
            if node.value is not None:
                self.assign(node.target, self.expr(node.value, state), state)
        elif isinstance(node, cst.AugAssign):
            taint = self.expr(node.value, state)
            for name in _names(node.target):
                joined = join(state.get(name), taint)
                state[name] = None if joined in _SCALARS else joined  # `n -= 1` is no longer len()
        elif isinstance(node, cst.Expr):
            self.expr(node.value, state)
        elif isinstance(node, cst.Return) and node.value is not None:
            if self.expr(node.value, state) in (WHOLE, MAP):
                self.result.returns_whole = True

    def assign(self, target: cst.BaseExpression, taint: Optional[str], state: State) -> None:
        if isinstance(target, cst.Subscript):  # `ids[k] = block.block_id` collects into ids
            self.expr(target, state)
            if taint in (WHOLE, MAP):
                for name in _names(target.value):
                    state[name] = WHOLE
            return
        self.bind(target, taint, state)

    def bind(self, target: cst.BaseExpression, taint: Optional[str], state: State) -> None:
        names = _names(target)
        if isinstance(target, (cst.Tuple, cst.List)) and taint == ZERO:
            taint = None
        for name in names:
            state[name] = taint

    def bind_iteration(self, target, iter_node, taint, state: State, scope) -> None:
        """Bind loop variables; `scope` (loop body or comprehension conditions) is where an
        index filter (`if i < first: continue`) would compare the index."""
        element = WHOLE if taint == WHOLE else None
        if m.matches(iter_node, m.Call(func=m.Name("range"))):
            names = _names(target)
            index = self._full_range(iter_node, state)
            for name in names:
                state[name] = IDX if index and not _compares(name, scope) else None
            return
        if m.matches(iter_node, m.Call(func=m.Name("enumerate"))) and isinstance(target, (cst.Tuple, cst.List)):
            elements = [el.value for el in target.elements]
            args = _positional(iter_node)
            inner = self.expr(args[0].value, dict(state)) if args else None
            counter = _names(elements[0]) if elements else []
            filtered = any(_compares(n, scope) for n in counter)
            for name in counter:
                state[name] = IDX if inner == WHOLE and not filtered else None
            for el in elements[1:]:
                self.bind(el, WHOLE if inner == WHOLE and not filtered else None, state)
            return
        if m.matches(iter_node, m.Call(func=m.Name("zip"))) and isinstance(target, (cst.Tuple, cst.List)):
            args = _positional(iter_node)
            if len(args) == len(target.elements):
                for arg, el in zip(args, target.elements):
                    self.bind(el.value, WHOLE if self.expr(arg.value, dict(state)) == WHOLE else None, state)
                return
        self.bind(target, element, state)

    def _full_range(self, call: cst.Call, state: State) -> bool:
        """`range(len(xs))` / `range(0, len(xs))` over a whole block list."""
        args = _positional(call)
        if len(args) == 1:
            stop = args[0].value
        elif len(args) >= 2 and m.matches(args[0].value, m.Integer("0")):
            stop = args[1].value
        else:
            return False
        if self.expr(stop, dict(state)) == LENGTH:
            return True
        for length in m.findall(stop, _LEN):
            inner = _positional(length)
            if inner and self.expr(inner[0].value, dict(state)) == WHOLE:
                return True
        return False

    # -- expressions -------------------------------------------------------------
    def expr(self, node: Optional[cst.CSTNode], state: State) -> Optional[str]:
        if node is None:
            return None
        if isinstance(node, cst.Name):
            return state.get(node.value)
        if isinstance(node, cst.Integer):
            return ZERO if m.matches(node, m.Integer("0")) else None
        if isinstance(node, cst.Attribute):
            dotted = ir.dotted_name(node)
            if dotted is not None and dotted in state:
                return state[dotted]
            base = self.expr(node.value, state)
            if node.attr.value == V.REQ_TO_BLOCKS:
                return MAP
            if node.attr.value in V.BLOCK_LIST_ATTRS:
                return WHOLE
            return WHOLE if base == WHOLE else None
        if isinstance(node, cst.Subscript):
            return self.subscript(node, state)
        if isinstance(node, cst.Call):
            return self.call(node, state)
        if isinstance(node, cst.BinaryOperation):
            left, right = self.expr(node.left, state), self.expr(node.right, state)
            taint = join(left, right)
            return None if taint in _SCALARS else taint
        if isinstance(node, cst.BooleanOperation):
            return join(self.expr(node.left, state), self.expr(node.right, state))
        if isinstance(node, cst.UnaryOperation):
            taint = self.expr(node.expression, state)
            return taint if taint == IDX else None
        if isinstance(node, cst.Comparison):
            self.expr(node.left, state)
            for target in node.comparisons:
                self.expr(target.comparator, state)
            return None
        if isinstance(node, cst.IfExp):
            self.expr(node.test, state)
            return join(self.expr(node.body, state), self.expr(node.orelse, state))
        if isinstance(node, (cst.List, cst.Set, cst.Tuple)):
            taint = None
            for el in node.elements:
                value = self.expr(el.value, state)
                taint = WHOLE if value in (WHOLE, MAP) or taint == WHOLE else taint
            return taint
        if isinstance(node, cst.Dict):
            taint = None
            for el in node.elements:
                if isinstance(el, cst.DictElement):
                    self.expr(el.key, state)
                if self.expr(el.value, state) in (WHOLE, MAP):
                    taint = WHOLE
            return taint
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            return self.comprehension(node, state)
        if isinstance(node, (cst.Await, cst.StarredElement)):
            return self.expr(node.expression if isinstance(node, cst.Await) else node.value, state)
        if isinstance(node, cst.NamedExpr):
            taint = self.expr(node.value, state)
            self.bind(node.target, taint, state)
            return taint
        return None

    def subscript(self, node: cst.Subscript, state: State) -> Optional[str]:
        base = self.expr(node.value, state)
        if len(node.slice) != 1:
            for element in node.slice:
                self.expr(getattr(element.slice, "value", None), state)
            return base if base == WHOLE else None
        index = node.slice[0].slice
        if isinstance(index, cst.Slice):
            lower = self.expr(index.lower, state)
            self.expr(index.upper, state)
            self.expr(index.step, state)
            bounded = index.lower is not None and not m.matches(index.lower, _TRIVIAL_LOWER) and lower != ZERO
            if bounded:
                return None  # a slice that starts past the beginning: the tail
            return base if base in (WHOLE, MAP) else None
        taint = self.expr(index.value, state)
        if base == MAP:
            return WHOLE
        if taint == WHOLE:
            return WHOLE  # `pool.blocks[block_id]` for every id of a whole list
        if base == WHOLE and (taint == IDX or m.matches(index.value, m.Integer())):
            return WHOLE  # every position, or a KV-cache group of every block
        return None

    def call(self, node: cst.Call, state: State) -> Optional[str]:
        func = node.func
        receiver = self.expr(func.value, state) if isinstance(func, cst.Attribute) else None
        args = [(arg, self.expr(arg.value, state)) for arg in node.args]
        name = ir.called_name(func) or ""
        if name in V.EVICT_BY_BLOCK and any(taint == WHOLE for _, taint in args):
            self._sink(
                node,
                f"`{name}()` is given every block of the request; evict only the unconfirmed tail "
                "(blocks from `(num_computed_tokens - num_in_flight_tokens) // block_size` on)",
            )
        if name in V.ZEROING_PRIMITIVES and self._zero_start(node, args):
            self._sink(
                node,
                f"`{name}()` from token 0 zeroes every block of the request; start at the confirmed "
                "boundary `num_computed_tokens - num_in_flight_tokens`",
            )
        if (
            name in _COLLECTING_METHODS
            and isinstance(func, cst.Attribute)
            and any(taint in (WHOLE, MAP) for _, taint in args)
        ):
            for target in _names(func.value):
                state[target] = WHOLE
        if name in V.BLOCK_LIST_CALLS:
            return WHOLE
        if m.matches(func, m.Name("len")):
            return LENGTH if any(taint == WHOLE for _, taint in args) else None
        if isinstance(func, cst.Attribute) and receiver in (WHOLE, MAP):
            if receiver == MAP:
                return WHOLE if name in _MAP_LOOKUPS else (MAP if name == "copy" else None)
            return None if name in _SCALAR_METHODS else WHOLE
        if (isinstance(func, cst.Name) and name in ("enumerate", *_PASSTHROUGH)) or name in ("chain", "from_iterable"):
            return WHOLE if any(taint == WHOLE for _, taint in args) else None
        return self._project_call(node, args)

    def _zero_start(self, node: cst.Call, args) -> bool:
        keyword, position = V.ZEROING_START_ARG
        positional = [taint for arg, taint in args if arg.keyword is None and arg.star == ""]
        for arg, taint in args:
            if arg.keyword is not None and arg.keyword.value == keyword:
                return taint == ZERO
        return len(positional) > position and positional[position] == ZERO

    def _project_call(self, node: cst.Call, args) -> Optional[str]:
        paths = self.analysis.paths
        target = paths.project.resolve_call(self.fn, ir.callee_ref(node.func))
        if target is None:
            return None
        callee, via_instance = target
        params = callee.caller_params(via_instance)
        seeds = set()
        position = 0
        for arg, taint in args:
            if arg.star:
                break
            param = arg.keyword.value if arg.keyword is not None else (params[position] if position < len(params) else None)
            if arg.keyword is None:
                position += 1
            if param is not None and taint in (WHOLE, MAP, ZERO):
                seeds.add((param, taint))
        result = self.analysis.analyze(callee, frozenset(seeds))
        if seeds:
            summary = paths.summary(callee)
            own = self.analysis.analyze(callee).sinks
            if summary is not None and summary.may_evict and set(result.sinks) - set(own):
                self._sink(
                    node,
                    f"Passes every block of a request (or token 0) to `{callee.name}()`, which evicts them; "
                    "evict only the unconfirmed tail (blocks from "
                    "`(num_computed_tokens - num_in_flight_tokens) // block_size` on)",
                )
        return WHOLE if result.returns_whole else None

    def _sink(self, node: cst.Call, message: str) -> None:
        self.result.sinks.setdefault(id(node), (node, message))

    def comprehension(self, node, state: State) -> Optional[str]:
        local = dict(state)
        bound: set[str] = set()
        clause = node.for_in
        while clause is not None:
            taint = self.expr(clause.iter, local)
            self.bind_iteration(clause.target, clause.iter, taint, local, list(clause.ifs))
            bound.update(_names(clause.target))
            for condition in clause.ifs:
                self.expr(condition.test, local)
            clause = clause.inner_for_in
        if isinstance(node, cst.DictComp):
            self.expr(node.key, local)
            taint = self.expr(node.value, local)
        else:
            taint = self.expr(node.elt, local)
        for name, value in local.items():  # collections filled as a side effect
            if name not in bound and value == WHOLE:
                state[name] = WHOLE
        return WHOLE if taint in (WHOLE, MAP) else None


class BroadEviction(Rule):
    """
    ## What it does
    Flags fault-path eviction that takes *every* block of a request: an
    `evict_blocks(...)` or `_maybe_evict_cached_block(...)` call (or a call of a project
    helper that evicts what it is given) whose argument comes from a whole block list
    (`req_to_blocks[...]`, `req_to_blocks.get(...)`, `get_blocks(...)`,
    `get_block_ids(...)`, `request.block_ids`) that was not sliced from a lower
    bound (`blocks[first:]`), including ids gathered by iterating such a list; and
    `record_blocks_for_zeroing(request_id, 0)` (zeroing from token 0). An index
    filter against a boundary (`for i, b in enumerate(blocks): if i < first: continue`)
    bounds the list too. Eviction outside fault paths (the KV-load-failure path) is
    not reported.

    ## Why is this bad?
    After a failed step only the unconfirmed tail is dirty: tokens
    `[num_computed_tokens - num_in_flight_tokens, num_computed_tokens)`, at most one
    full block per request and KV-cache group. Evicting the whole list drops the
    hashes of clean blocks too, so the resumed request recomputes its entire prompt
    instead of the tail, and prefix blocks it shares with other requests lose their
    cache entries for everyone.

    ## Example
    ```python
    def _evict_dirty_blocks(self, request):
        kv = self.engine.scheduler.kv_cache_manager
        for manager in kv.coordinator.single_type_managers:
            blocks = manager.req_to_blocks[request.request_id]
            kv.evict_blocks({b.block_id for b in blocks if not b.is_null})
    ```

    Use instead:
    ```python
    def _evict_dirty_blocks(self, request):
        kv = self.engine.scheduler.kv_cache_manager
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        for manager in kv.coordinator.single_type_managers:
            tail = manager.req_to_blocks[request.request_id][confirmed // manager.block_size:]
            kv.evict_blocks({b.block_id for b in tail if not b.is_null})
    ```
    """

    CODE = "FT004"
    NAME = "broad-eviction"
    MESSAGE = "Fault path evicts every block of the request instead of the unconfirmed tail"

    VALID = [
        Valid(
            """
            import time

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    scheduler = self.engine.scheduler
                    for request in list(scheduler.running):
                        self._evict_unconfirmed_tail(request)
                        if self.can_resume:
                            scheduler._preempt_request(request, time.monotonic())
                            request.num_in_flight_tokens = 0
                            request.num_stale_output_tokens = 0
                        else:
                            scheduler.finish_requests([request.request_id], "aborted")

                def _evict_unconfirmed_tail(self, request):
                    kv = self.engine.scheduler.kv_cache_manager
                    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
                    kv.record_blocks_for_zeroing(request.request_id, confirmed - confirmed % 16)
                    for manager in kv.coordinator.single_type_managers:
                        tail = manager.req_to_blocks[request.request_id][confirmed // manager.block_size:]
                        kv.evict_blocks({b.block_id for b in tail if not b.is_null})
            """,
            name="tail-slice-in-same-class-helper-abort-and-resume",
        ),
        Valid(
            """
            from recovery import evict_tail

            def on_fault(engine, exc):
                kv = engine.scheduler.kv_cache_manager
                for request in list(engine.scheduler.running):
                    blocks = kv.coordinator.single_type_managers[0].req_to_blocks[request.request_id]
                    evict_tail(kv, request, blocks)
                engine.scheduler.finish_requests(None, "aborted")
            """,
            files={
                "recovery.py": """
def evict_tail(kv, request, blocks):
    first = (request.num_computed_tokens - request.num_in_flight_tokens) // 16
    ids = set()
    for i, block in enumerate(blocks):
        if i < first or block.is_null:
            continue
        ids.add(block.block_id)
    kv.evict_blocks(ids)
    for j in range(first, len(blocks)):
        kv.block_pool._maybe_evict_cached_block(blocks[j])
"""
            },
            name="whole-list-bounded-by-helper-in-other-module",
        ),
        Valid(
            """
            class Scheduler:
                def _handle_invalid_blocks(self, request, invalid_block_ids):
                    blocks = self.kv_cache_manager.coordinator.single_type_managers[0].req_to_blocks[request.request_id]
                    self.kv_cache_manager.evict_blocks({b.block_id for b in blocks})

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    self.engine.scheduler.finish_requests(None, "aborted")  # noqa: FT007
            """,
            name="kv-load-failure-path-is-not-a-fault-path",
        ),
    ]
    INVALID = [
        Invalid(
            """
            import time

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    scheduler = self.engine.scheduler
                    for request in list(scheduler.running):
                        self._evict_dirty_blocks(request)
                        if self.can_resume:
                            scheduler._preempt_request(request, time.monotonic())
                            request.num_in_flight_tokens = 0
                            request.num_stale_output_tokens = 0
                        else:
                            scheduler.finish_requests([request.request_id], "aborted")

                def _evict_dirty_blocks(self, request):
                    kv = self.engine.scheduler.kv_cache_manager
                    for manager in kv.coordinator.single_type_managers:
                        blocks = manager.req_to_blocks[request.request_id]
                        kv.evict_blocks({b.block_id for b in blocks if not b.is_null})
            """,
            expect=((19, 13),),
            name="req-to-blocks-in-same-class-helper-abort-and-resume",
        ),
        Invalid(
            """
            from recovery import evict_request_blocks

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    kv = self.engine.scheduler.kv_cache_manager
                    for request in list(self.engine.scheduler.running):
                        evict_request_blocks(kv, request.request_id)
                    self.engine.scheduler.finish_requests(None, "aborted")
            """,
            files={
                "recovery.py": """
def evict_request_blocks(kv, request_id):
    ids = set()
    for manager in kv.coordinator.single_type_managers:
        for block in manager.req_to_blocks.get(request_id, [])[0:]:
            ids.add(block.block_id)
    kv.evict_blocks(ids)
"""
            },
            expect=(("recovery.py", 6, 5),),
            name="req-to-blocks-in-helper-in-other-module",
        ),
        Invalid(
            """
            class EngineCoreSentinel:
                def on_fault(self, exc):
                    kv = self.engine.scheduler.kv_cache_manager
                    for request in list(self.engine.scheduler.running):
                        self._evict(kv.get_block_ids(request.request_id)[0])
                        self._evict(request.block_ids[:8])
                        self._zero(request.request_id)
                    self.engine.scheduler.finish_requests(None, "aborted")

                def _evict(self, block_ids):
                    self.engine.scheduler.kv_cache_manager.evict_blocks(set(block_ids))

                def _zero(self, request_id):
                    self.engine.scheduler.kv_cache_manager.record_blocks_for_zeroing(request_id, 0)
            """,
            expect=((5, 13), (6, 13), (14, 9)),
            name="get-block-ids-and-request-block-ids-passed-to-helper",
        ),
        Invalid(
            """
            def on_fault(engine, exc):
                pool = engine.scheduler.kv_cache_manager.block_pool
                for request in list(engine.scheduler.running):
                    blocks = engine.scheduler.kv_cache_manager.get_blocks(request.request_id).blocks[0]
                    for i in range(len(blocks)):
                        pool._maybe_evict_cached_block(blocks[i])
                    for block in blocks:
                        pool._maybe_evict_cached_block(block)
                engine.scheduler.finish_requests(None, "aborted")
            """,
            expect=((6, 13), (8, 13)),
            name="maybe-evict-every-block-in-a-loop",
        ),
    ]

    def __init__(self, context) -> None:
        super().__init__(context)
        self._analysis = BroadEvictionAnalysis(context.paths)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        fn = self.context.info.function_for(node)
        if fn is None or not self.in_fault_path(node):
            return
        for call, message in self._analysis.analyze(fn).sinks.values():
            self.report(call, message)
