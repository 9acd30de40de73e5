"""Statements: every path through a suite. Branches fork the states, joins keep them
apart (up to state.MAX_STATES); loops run their body twice (the second pass sees what
the first collected) and, over the running requests, spread what one iteration did to
every request; `try`, `with` (a project `@contextmanager` runs its code before the
`yield` on entry and the rest on exit) and assignments, counter writes included."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import libcst as cst

from ftlint.analysis import values as Val
from ftlint.analysis.walk.base import UNROLLED, Decrement
from ftlint.analysis.walk.calls import Calls, live_running
from ftlint.analysis.walk.shapes import (
    Body,
    ContextSplit,
    all_nodes,
    bound_once,
    context_split,
    counters_read,
    decided,
    decrements,
    descriptor_name,
    forget_truth,
    free_names,
    is_generator,
    names_in,
    phase_test,
    recorded,
    target_names,
)
from ftlint.analysis.walk.state import (
    CONFIRMED_ZERO,
    EXIT_STACK,
    Flow,
    Results,
    State,
    clear_skips,
    covered,
    dedupe,
    fill_accumulators,
    mark,
    not_at_zero,
    promote,
    retire,
    skipped,
    skipping,
    switched_off,
    tag_entries,
    unbind,
)
from ftlint.core import vocabulary as V
from ftlint.syntax import ir

#: (comparison, the integer compared with) -> whether the test holds when the count is 0
_ZERO_SIDES: dict[tuple[type, str | None], bool] = {
    (cst.LessThanEqual, "0"): True,
    (cst.Equal, "0"): True,
    (cst.LessThan, "1"): True,
    (cst.GreaterThan, "0"): False,
    (cst.NotEqual, "0"): False,
    (cst.GreaterThanEqual, "1"): False,
}
#: (id() of a class, attribute) -> (the class, whether the attribute is a data descriptor)
_DESCRIPTORS: dict[tuple[int, str], tuple[ClassInfo, bool]] = {}
#: id() of an `if flag:` -> (it, the ids its body evicts when the flag marks adds to them, else {})
_FLAG_TESTS: dict[int, tuple[cst.If, set[str | None]]] = {}
_MACHINE_STEPS = 12  # steps of a `while` loop whose test the walk decides (a state machine)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ftlint.index.project import ClassInfo, Function

Statement = cst.BaseStatement | cst.SimpleStatementSuite


def _statements(suite: cst.BaseSuite | Body | None) -> Sequence[Statement]:
    """A suite's statements; a one-line suite (`try: x()`) is one statement of small ones."""
    if isinstance(suite, cst.SimpleStatementSuite):
        return (suite,)
    if isinstance(suite, (cst.IndentedBlock, Body)):
        return suite.body
    return ()


class ControlFlow(Calls):
    """Statements, walked over a list of states: a Flow of the states leaving them."""

    def suite(self, suite: cst.BaseSuite | Body | None, states: list[State]) -> Flow:
        flow = Flow(normal=states)
        if suite is None:
            return flow
        for statement in _statements(suite):
            if not flow.normal:
                break
            step = self.statement(statement, flow.normal)
            flow.normal = step.normal
            flow.add(step, normal=False)
        flow.normal = dedupe(flow.normal)
        return flow

    def statement(self, node: Statement, states: list[State]) -> Flow:
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
            return self._match(node, states)
        if isinstance(node, cst.FunctionDef):
            nested = self.fn.nested.get(node.name.value)
            if nested is not None:
                free = free_names(nested)
                return Flow(
                    normal=[
                        s.bind(
                            node.name.value,
                            Val.FunctionRef(nested, False, None, tuple((n, s.env[n]) for n in free if n in s.env)),
                        )
                        for s in states
                    ]
                )
        return Flow(normal=states)

    def _match(self, node: cst.Match, states: list[State]) -> Flow:
        flow = Flow()
        entered = [s for _, s in self.ev_all(node.subject, states)]
        irrefutable = False
        for case in node.cases:
            flow.add(self.suite(case.body, entered))
            irrefutable |= isinstance(case.pattern, cst.MatchAs) and case.pattern.pattern is None and case.guard is None
        if not irrefutable:
            flow.normal += entered
        return flow

    # -- with ------------------------------------------------------------------------------------
    def _with(self, node: cst.With, states: list[State]) -> Flow:
        """`with cm(...) as x:`; a project `@contextmanager` of a shape `shapes.yield_split`
        knows runs its code before the `yield` on entry and the rest on exit, after the body
        (evictions in its `finally` come after the body's frees)."""
        exits: list[tuple[str, ContextSplit, cst.Call] | tuple[Function, cst.BaseExpression]] = []
        stacks: list[str] = []
        for item in node.items:
            split = self._context_manager(item.item)
            stack = self._exit_stack(item, states)
            if stack is not None:  # `with ExitStack() as stack:`: its callbacks run after the body
                stacks.append(stack)
                states = [s.bind(stack, Val.Seq(())) for s in states]
                results: Results = [(Val.Str(stack), s) for s in states]
            elif split is None or not isinstance(item.item, cst.Call):
                results = self._enter_object(item.item, self.ev_all(item.item, states), exits)
            else:
                tag = f"<ctx{id(item)}>"
                exits.append((tag, split, item.item))
                results = self._enter(split, tag, item.item, states)
            asname = item.asname
            states = [self.assign(asname.name, v, s) if asname is not None else s for v, s in results]
        flow = self.suite(node.body, states)
        for stack in reversed(stacks):
            flow.normal = self._unwind(stack, flow.normal)
            flow.ret = self._unwind(stack, flow.ret)
        for leaving in reversed(exits):
            if len(leaving) == 3:
                tag, split, call = leaving
                flow.normal = self._exit(split, tag, call, flow.normal)
                flow.ret = self._exit(split, tag, call, flow.ret)
            else:
                leave, expr = leaving
                flow.normal = self._exit_object(leave, expr, flow.normal)
                flow.ret = self._exit_object(leave, expr, flow.ret)
        return flow

    def _exit_stack(self, item: cst.WithItem, states: list[State]) -> str | None:
        """`with ExitStack() as stack:` (contextlib's): the name its callbacks are kept under in
        the path's state; None for another item."""
        expr = item.item
        if not (isinstance(expr, cst.Call) and not expr.args and item.asname is not None):
            return None
        if self._stdlib(expr.func, states[0] if states else State({})) != "contextlib.ExitStack":
            return None
        return f"{EXIT_STACK}{id(item)}"

    def _unwind(self, stack: str, states: list[State]) -> list[State]:
        """The callbacks `stack.callback(f, *args)` registered, last first, on each path."""
        out: list[State] = []
        for state in states:
            current = [state]
            registered = state.env.get(stack)
            for entry in reversed(registered.items if isinstance(registered, Val.Seq) else ()):
                kept = self.exit_callbacks.get(cast(Val.Str, entry).text)
                if kept is None:  # a callback the walk cannot call: it may evict
                    current = [covered(st) for st in current]
                    continue
                callee, args, node = kept
                current = [s for st in current for _, s in self.call_value(callee, list(args), {}, node, st)]
            out.extend(s.replace(env={k: v for k, v in s.env.items() if k != stack}) for s in current)
        return out

    def _enter_object(
        self,
        expr: cst.BaseExpression,
        results: Results,
        exits: list[tuple[str, ContextSplit, cst.Call] | tuple[Function, cst.BaseExpression]],
    ) -> Results:
        """`with Window(sched) as batch:` where `Window` is a project class: its `__enter__` runs
        on entry (its value is `batch`), its `__exit__` after the body (`exits`)."""
        out: Results = []
        leaves: list[Function] = []
        for value, state in results:
            if (
                not isinstance(value, Val.Instance)
                or (enter := self.interp.project.method(value.cls, "__enter__")) is None
            ):
                out.append((value, state))
                continue
            leave = self.interp.project.method(value.cls, "__exit__")
            if leave is not None and leave not in leaves:
                leaves.append(leave)
            out.extend(self.call_value(Val.FunctionRef(enter, True), [], {}, expr, state))
        exits.extend((leave, expr) for leave in leaves)
        return out

    def _exit_object(self, leave: Function, expr: cst.BaseExpression, states: list[State]) -> list[State]:
        """A project class's `__exit__` after a `with` body left normally (no exception)."""
        ref = Val.FunctionRef(leave, True)
        return [after for state in states for _, after in self.call_value(ref, [Val.NONE] * 3, {}, expr, state)]

    def _context_manager(self, expr: cst.BaseExpression) -> ContextSplit | None:
        if not isinstance(expr, cst.Call):
            return None
        ref = ir.callee_ref(expr.func)
        target = self.resolve(ref) if ref is not None else None
        return context_split(*target) if target is not None else None

    def _enter(self, split: ContextSplit, tag: str, call: cst.Call, states: list[State]) -> Results:
        out: Results = []
        called = [bound for st in states for bound in self.arguments(call, st)]
        for args, keywords, s in called:
            env = self.frame_env(split.fn, split.via_instance, args, keywords)
            if self.is_handler:
                self.interp.reached_fns.add(split.fn)
            self.stack.append((split.fn, self.site(call)))
            self.selves.append(self.self_class_of(split.fn, split.via_instance))
            try:
                flow = self.suite(Body(split.before), [s.replace(env=env)])
                for inside in flow.normal:
                    yielded = self.ev(split.yielded, inside) if split.yielded is not None else [(Val.NONE, inside)]
                    for value, after in yielded:
                        frame = Val.Frame(tuple(after.env.items()))
                        out.append((value, after.replace(env=s.env).bind(tag, frame)))
            finally:
                self.selves.pop()
                self.stack.pop()
        return out

    def _exit(self, split: ContextSplit, tag: str, call: cst.Call, states: list[State]) -> list[State]:
        out: list[State] = []
        for s in states:
            frame = s.env.get(tag)
            caller_env = {n: v for n, v in s.env.items() if n != tag}
            if not isinstance(frame, Val.Frame):
                out.append(s.replace(env=caller_env))
                continue
            self.stack.append((split.fn, self.site(call)))  # reached from the `with`, as on entry
            self.selves.append(self.self_class_of(split.fn, split.via_instance))
            try:
                flow = self.suite(Body(split.after), [s.replace(env=dict(frame.env))])
            finally:
                self.selves.pop()
                self.stack.pop()
            out.extend(after.replace(env=caller_env) for after in flow.normal + flow.ret)
        return dedupe(out)

    # -- if ----------------------------------------------------------------------------------------
    def _function_body(self, fallback: cst.If) -> cst.CSTNode:
        """The body of the function being walked (where its locals are bound)."""
        node = self.fn.node
        return node.body if node is not None else fallback

    def _if(self, node: cst.If, states: list[State]) -> Flow:
        flow = Flow()
        current: cst.If | cst.Else | None = node
        while isinstance(current, cst.If):  # an elif chain, iterated
            taken, skipped = [], []
            self.current = states[0] if states else self.current  # the names bound before the test
            gate = self._gate(current.test)
            for value, s in self.ev_all(current.test, states):
                truth = Val.truth(value)
                if truth is None:
                    truth = recorded(current.test, s)
                flagged = self._flagged(current, s)
                truth = truth if flagged is None else flagged
                zero_when = self._zero_count(current.test, s)  # which side holds when the count is 0
                s_taken = s.bind(CONFIRMED_ZERO, Val.TRUE) if zero_when is True else s
                s_passed = s.bind(CONFIRMED_ZERO, Val.TRUE) if zero_when is False else s
                side_gate = gate if truth is None else None  # a test decided on this path splits nothing
                if truth is not False:
                    held = self._guard(current.test, decided(current.test, s_taken, truth, True), True)
                    if value is None and _returns_when_empty(current, self._function_body(current)):
                        held = covered(held)  # `if not ids: return` before `evict(ids)`
                    taken.append(mark(held, side_gate, True))
                if truth is not True:
                    passed = self._guard(current.test, decided(current.test, s_passed, truth, False), False)
                    if (
                        value is None
                        and not _tests_known_ids(current.test, s)
                        and _evicts_what_it_tests(current, self._function_body(current))
                    ):  # `if dirty: evict(dirty)`
                        passed = covered(passed)
                    elif flagged is False:
                        passed = covered(passed)  # `if had_tail: evict(ids)` with nothing added to ids
                    elif value == Val.FALSE and self._collects(current.body, s):
                        # `if EVICT_TAIL:` (a switch off by default) around what collects or evicts
                        # the ids: an empty set later is no "nothing to evict"
                        passed = switched_off(passed, id(current))
                    skipped.append(mark(passed, side_gate, False))
            dropping = bool(taken) and self.drops_by_length(current.test, taken[0])
            if dropping:  # `if b.block_id < len(blocks): ids.add(...)`: what it adds is filtered
                taken = [t.bind("<dropping>", Val.TRUE) for t in taken]
            body = self.suite(current.body, taken)
            if dropping:
                body = unbind(body, "<dropping>")
            if (
                body.cont
                and self.loops
                and id(node) not in self.loop_ends
                and not self._skips_clean(current.test, taken[0] if taken else None)
            ):
                body.cont = [skipping(c, self.loop_nodes[-1]) for c in body.cont]
            flow.add(body)
            states = skipped
            current = current.orelse
        if isinstance(current, cst.Else):
            flow.add(self.suite(current.body, states))
        else:
            flow.normal += states
        flow.normal = dedupe(flow.normal)
        return flow

    def _collects(self, body: cst.BaseSuite, state: State) -> bool:
        """Whether `body` evicts, adds block ids to a set of them (`ids |= ...`, `ids.add(b.block_id)`)
        or hands an empty one to a function to fill (`collect_tail(..., into)`)."""
        names: set[str | None] = {n for n, v in state.env.items() if isinstance(v, Val.Ids) and not v.stale}
        for node in all_nodes(body):
            if isinstance(node, cst.Call) and ir.called_name(node.func) in V.EVICT_BY_BLOCK:
                return True
            small = node if isinstance(node, (cst.AugAssign, cst.Expr)) else None
            if small is not None and _adds_to(small, names):
                added = small.value if isinstance(small, cst.AugAssign) else cast(cst.Call, small.value).args
                added_node = added if isinstance(added, cst.BaseExpression) else added[0].value if added else None
                value = self.ev_pure(added_node, state) if added_node is not None else None
                if "block" in ir.code_of(small) or (isinstance(value, Val.Ids) and value.start != "empty"):
                    return True
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
                given = [a.value.value for a in node.args if isinstance(a.value, cst.Name)]
                if any(Val.is_empty_ids(state.env.get(name)) for name in given):
                    return True
        return False

    def _descriptor_set(self, cls: ClassInfo, attr: str) -> bool:
        """Whether `attr` of an object of `cls` is a data descriptor: a class-level object of a
        project class defining `__set__`."""
        known = _DESCRIPTORS.get((id(cls), attr))
        if known is not None and known[0] is cls:
            return known[1]
        project, found = self.interp.project, False
        for each in project.mro(cls):
            name = descriptor_name(each, attr)
            if name is not None:
                made = project.resolve_class(each.module, name)
                found = made is not None and project.method(made, "__set__") is not None
                break
        if len(_DESCRIPTORS) > 4096:  # an editor's session makes new classes on each edit
            _DESCRIPTORS.clear()
        _DESCRIPTORS[(id(cls), attr)] = (cls, found)
        return found

    def _zero_count(self, test: cst.BaseExpression, state: State) -> bool | None:
        """`if confirmed <= 0:` (`== 0`, `< 1`, `not confirmed`) of the confirmed token count: True
        (its body runs when the count is 0), False for the negation (`> 0`, `!= 0`, `confirmed`),
        None for another test."""
        negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        inner = test.expression if negated and isinstance(test, cst.UnaryOperation) else test
        counted: cst.BaseExpression
        if isinstance(inner, cst.Name):
            counted, zero_side = inner, negated
        elif isinstance(inner, cst.Comparison) and len(inner.comparisons) == 1 and not negated:
            pair = inner.comparisons[0]
            bound = pair.comparator.value if isinstance(pair.comparator, cst.Integer) else None
            sides = _ZERO_SIDES.get((type(pair.operator), bound))
            if sides is None:
                return None
            counted, zero_side = inner.left, sides
        else:
            return None
        if not isinstance(counted, cst.Name):  # a count bound to a name (read off the path's names)
            return None
        return zero_side if Val.num_kind(state.env.get(counted.value)) == "confirmed" else None

    def _flagged(self, node: cst.If, state: State) -> bool | None:
        """`if had_tail: evict(ids)` where the flag is raised only beside an add to the ids the
        body evicts (see _flags_adds): the flag is whether the ids hold any, so where the walk
        knows them, False (nothing to evict) when empty and True when not; None otherwise."""
        flag = node.test.value if isinstance(node.test, cst.Name) else None
        if flag is None or not isinstance(state.env.get(flag), (Val.Bool, type(None))):
            return None
        known = _FLAG_TESTS.get(id(node))
        if known is None or known[0] is not node:
            given = _evicted_names(node.body)
            flags = bool(given) and _flags_adds(self._function_body(node), flag, given)
            if len(_FLAG_TESTS) > 4096:
                _FLAG_TESTS.clear()
            known = _FLAG_TESTS[id(node)] = (node, given if flags else set())
        given = known[1]
        if not given:
            return None
        values = [state.env.get(name) if isinstance(name, str) else None for name in given]
        if all(Val.is_empty_ids(v) for v in values):
            return False
        return True if any(isinstance(v, Val.Ids) and v.start != "empty" for v in values) else None

    def _gate(self, test: cst.BaseExpression) -> str | None:
        """In the body of a loop over the running requests, a test that is not about a
        request's dirty tail (`isinstance(exc, ...)`, a flag): an eviction on one of its
        sides covers the iterations that took that side only (see state.promote)."""
        if not (self.loops and self.loops[-1]) or _tests_running(test):
            return None
        current = self.current
        if current is not None and isinstance(self.ev_pure(test, current), Val.TailTest):
            return None  # `if not span.empty:`: whether the request has a dirty tail, either way
        if self._legit_skip(test, current) or self._holds_no_blocks(test, current):
            return None
        inner = _bound(test.expression if isinstance(test, cst.UnaryOperation) else test)
        if isinstance(inner, cst.Name) or (isinstance(inner, cst.Call) and ir.called_name(inner.func) == "len"):
            return None  # `if ids:`, `if not found:`: a local the walk may not know, not a gate
        return f"{id(test)}"

    def _guard(self, test: cst.BaseExpression, state: State, holds: bool) -> State:
        """`if ids:` / `if not ids:` (also `if (ids := ...):`): on the path where the block ids
        are empty there was nothing to evict, which is as good as evicting them; so on the
        path where a copy of the running queue is empty (`if not reqs: return`)."""
        for field_name in counters_read(test):  # `if req.num_output_placeholders > 0:`: tested
            state = not_at_zero(state, None, field_name)
        if isinstance(test, cst.BooleanOperation):
            return self._guard_both(test, state, holds)
        negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        inner = test.expression if isinstance(test, cst.UnaryOperation) and negated else test
        counted = _length_test(inner)
        if counted is not None:  # `len(ids) == 0` as `not ids`, `len(ids) > 0` as `ids`
            inner, negated = counted[0], counted[1] != negated
        inner = _array_size_of(inner) or inner  # `ids.size`, `ids.numel()` as `ids`
        if (
            isinstance(inner, cst.Call)
            and isinstance(inner.func, cst.Name)
            and inner.func.value == "len"
            and inner.args
        ):
            inner = inner.args[0].value
        inner = _bound(inner)
        if isinstance(inner, cst.Attribute) and inner.attr.value == V.COUNTER_FIELDS[0] and holds == negated:
            return self._in_flight_zero(inner, state)
        name = ir.dotted_name(inner) if isinstance(inner, (cst.Name, cst.Attribute)) else None
        value = state.env.get(name) if name else None
        if name is not None and name not in state.env and isinstance(inner, cst.Attribute):
            value = self.ev_pure(inner, state)  # `if not sched.running:`
        if isinstance(value, (Val.Running, Val.PerRequest, Val.Each)) and holds == negated:
            # `if not reqs:` (a copy of the running queue), `if not by_id:` (a dict of an entry per
            # request), `if spans := [...]:` (a list of an element per request):
            # none runs, no tail to evict and no request preempted from it, now or later
            # (the requests freed earlier on the path, popped off the queue one by one, keep
            # their own verdict: `while True: if len(running) == 0: break; req = running.pop()`)
            none_left = {("*", field_name) for field_name in V.ALL_COUNTER_FIELDS}
            base = state if state.freed else covered(state)
            return base.replace(pending=frozenset(), zeroed=state.zeroed | none_left)
        if not isinstance(value, Val.Ids) or value.stale or holds != negated:
            return state
        if Val.is_empty_ids(value) and skipped(state):
            return state  # empty because a switch skipped what collects them: not "nothing to evict"
        if Val.is_empty_ids(value) and any(self.loops):
            # in a loop over the requests, ids still empty (`if blocks is not None:` skipped the
            # add): this iteration had nothing to evict, which covers no other request
            return state
        return state.replace(evicted=state.evicted | {(value.key or "*", Val.quality(value))})

    def short_circuit(self, node: cst.BooleanOperation, state: State) -> State:
        """`dirty and evict(dirty)` (`not dirty or evict(dirty)`) skipping the eviction: `dirty`
        was empty, nothing to evict (as `if dirty: evict(dirty)`); else the left side's outcome
        as an `if` reads it."""
        conjunction = isinstance(node.operator, cst.And)
        held = self._guard(node.left, state, not conjunction)
        left = _bound(node.left)
        negated = isinstance(left, cst.UnaryOperation) and isinstance(left.operator, cst.Not)
        inner = _bound(left.expression) if isinstance(left, cst.UnaryOperation) and negated else left
        tested = _emptiness_of(inner) if conjunction != negated else None
        return covered(held) if tested is not None and tested in _evicted_names(node.right) else held

    def _guard_both(self, test: cst.BooleanOperation, state: State, holds: bool) -> State:
        """`a and b` holding (`a or b` failing): each side did; `a and b` failing with one
        side true on the path (`if self.opts.evict and (ids := tail()):`): the other did;
        `a or b` holding with one side false: the other did. Otherwise no side is known."""
        conjunction = isinstance(test.operator, cst.And)
        if holds == conjunction:
            return self._guard(test.right, self._guard(test.left, state, holds), holds)
        if Val.truth(self.ev_pure(test.left, state)) is conjunction:
            return self._guard(test.right, state, holds)
        if Val.truth(self.ev_pure(test.right, state)) is conjunction:  # `(ids := tail()) and EVICT`
            return self._guard(test.left, state, holds)
        return state

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

    def _skips_clean(self, test: cst.BaseExpression, state: State | None) -> bool:
        """`if <test>: continue` skips only requests (blocks) with no dirty tail: a legit skip,
        or a request with no blocks (`req.request_id not in mgr.req_to_blocks`); not one with
        tokens in flight (`if req.num_in_flight_tokens > 0: continue` skips exactly the
        requests whose tail is dirty)."""
        if _in_flight_positive(test):
            return False
        return self._holds_no_blocks(test, state) or self._legit_skip(test, state)

    def _holds_no_blocks(self, test: cst.BaseExpression, state: State | None) -> bool:
        """`req.request_id not in mgr.req_to_blocks`: true only for a request holding no blocks;
        so `blocks is None` and `not blocks` of its block list (`mgr.req_to_blocks.get(rid)`)."""
        if state is None:
            return False
        absent = _absence_of(test)
        if absent is not None:
            listed = self.ev_pure(absent, state)
            return isinstance(listed, Val.Ids) and listed.start == "whole"
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
            return False
        pair = test.comparisons[0]
        return isinstance(pair.operator, cst.NotIn) and isinstance(self.ev_pure(pair.comparator, state), Val.BlockMap)

    def _legit_skip(self, test: cst.BaseExpression, state: State | None) -> bool:
        """Skipping a request is fine when it has no dirty tail (no in-flight tokens,
        nothing computed) or for a block that holds no hash (null, unhashed)."""
        text = ir.code_of(test)
        if phase_test(test):
            return False  # `req.num_computed_tokens <= req.num_prompt_tokens`: in prefill, not clean
        if any(word in text for word in (*V.TAIL_BOUNDARY, V.BLOCK_IS_NULL, V.BLOCK_HASH_ATTR)):
            return True
        if state is not None and _empty_ids_test(test, state):  # `if not ids: continue`: nothing to evict
            return True
        if state is not None and self.ev_pure(test, state) == Val.TailTest(True):  # `if span.empty:`
            return True
        return state is not None and any(
            Val.num_kind(value) in ("confirmed", "inflight", "computed", "cblk") and name in text
            for name, value in state.env.items()
        )

    # -- simple statements -----------------------------------------------------------------------
    def small(self, node: cst.BaseSmallStatement, states: list[State]) -> Flow:
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
            return Flow(
                normal=[self._assign_all(node, value, state) for value, state in self.ev_all(node.value, states)]
            )
        if isinstance(node, cst.AnnAssign):
            if node.value is None:
                return Flow(normal=states)
            return Flow(normal=[self.assign(node.target, v, s) for v, s in self.ev_all(node.value, states)])
        if isinstance(node, cst.AugAssign):
            return Flow(
                normal=[self._aug_assign(node, value, state) for value, state in self.ev_all(node.value, states)]
            )
        if isinstance(node, cst.Expr):
            if isinstance(node.value, cst.Call) and self._unconsumed_generator(node.value, states):
                # `self._evict_tails(reqs)` of a generator function: nothing runs until it is iterated
                return Flow(normal=[s for _, s in self.ev_seq_all([a.value for a in node.value.args], states)])
            return Flow(normal=[s for _, s in self.ev_all(node.value, states)])
        if isinstance(node, cst.Assert):
            return Flow(normal=[s for _, s in self.ev_all(node.test, states)])
        return Flow(normal=states)

    def _unconsumed_generator(self, call: cst.Call, states: list[State]) -> bool:
        """A call, as a statement of its own, of a project function that is a generator."""
        if not states:
            return False
        callee = self.ev_pure(call.func, states[0])
        return isinstance(callee, Val.FunctionRef) and is_generator(callee.fn)

    def _assign_all(self, node: cst.Assign, value: Val.Value, state: State) -> State:
        for target in node.targets:
            if decrements(target.target, node.value):
                state = self._decrement(target.target, state)
            state = self.assign(target.target, value, state)
        return state

    def _aug_assign(self, node: cst.AugAssign, value: Val.Value, state: State) -> State:
        name = ir.dotted_name(node.target)
        aug = node.target
        if isinstance(aug, cst.Attribute) and aug.attr.value == V.NUM_COMPUTED_TOKENS:
            state = self.rewind(self.ev_pure(aug.value, state), aug, state)
        if isinstance(aug, cst.Attribute) and aug.attr.value in V.ALL_COUNTER_FIELDS:
            if isinstance(node.operator, cst.SubtractAssign) and value != Val.ZERO:
                state = self._decrement(aug, state)
            else:
                state = not_at_zero(state, Val.key_of(self.ev_pure(aug.value, state)), aug.attr.value)
        if isinstance(aug, cst.Subscript) and isinstance(value, Val.Ids):
            return self._aug_item(aug, value, state)
        if name is not None:
            old = state.env.get(name)
            if isinstance(old, Val.Ids) and isinstance(value, Val.Ids):
                state = state.bind(name, Val.join_ids(old, value))
            elif not isinstance(old, Val.Ids):
                state = state.bind(name, Val.OTHER if isinstance(old, Val.Num) else None)
        return state

    def _aug_item(self, target: cst.Subscript, value: Val.Ids, state: State) -> State:
        """`by_group[gid] |= ids` into a dict that was empty (`defaultdict(set)`) or is filled so:
        a Keyed dict whose values are the ids any key holds."""
        name = ir.dotted_name(target.value)
        old = state.env.get(name) if name else None
        if name is None:
            return state
        if isinstance(old, Val.Table) and not old.items:
            return state.bind(name, Val.Keyed(value))
        if isinstance(old, Val.Keyed) and isinstance(old.values, Val.Ids):
            return state.bind(name, Val.Keyed(Val.join_ids(old.values, value)))
        return state.bind(name, None) if isinstance(old, (Val.Table, Val.Keyed)) else state

    def _decrement(self, target: cst.BaseExpression, state: State) -> State:
        """`req.counter -= n` (n not 0), `req.counter = req.counter - n`: recorded with whether
        the counter is known to be 0 here; afterwards its value is not known."""
        if not isinstance(target, cst.Attribute):
            return state
        base = self.ev_pure(target.value, state)
        key, field_name = Val.key_of(base), target.attr.value
        bys = {by for k, f, by in state.at_zero if k in (key, "*") and f == field_name} if key is not None else set()
        seen = self.decrements.setdefault(id(target), Decrement(self.site(target)))
        seen.zeroed_by |= bys
        seen.at_zero_always = seen.at_zero_always and bool(bys)
        return not_at_zero(state, key, field_name)

    # -- loops -----------------------------------------------------------------------------------------
    def _loop_body(self, body: cst.BaseSuite, states: list[State], bind: Callable[[State], State]) -> Flow:
        """The body twice (the second pass sees what the first collected); a loop over
        no requests frees nothing, so the body runs at least once."""
        first = self.suite(body, [bind(s) for s in states])
        born = set(self.loops[-1]) if self.loops else set()
        again = dedupe(states + retire(first.normal + first.cont, born))
        second = self.suite(body, [bind(s) for s in again])
        second.brk += first.brk
        second.ret += first.ret
        second.exc += first.exc
        return second

    def _for(self, node: cst.For, states: list[State]) -> Flow:
        states = tag_entries(states, len(self.loops))
        self.loop_ends.add(_last_statement(node.body))
        self.loops.append([])
        self.loop_nodes.append(id(node))
        flow = Flow()
        over_requests = False  # `for req in [req]`: a skip in it skips a request
        for iterable, state in self.ev_all(node.iter, states):
            if _nothing_in(iterable):  # `for step in ():` (an empty plan): the body never runs
                flow.normal.append(state)
                continue
            if isinstance(iterable, Val.Seq) and _callables(iterable):
                # `for step in (self._evict, self._abort): step()`: each in turn
                unrolled = self._unrolled(node, iterable.items, state)
                flow.add(unrolled, normal=False)
                flow.normal += unrolled.normal
                continue
            element = self.element(iterable, node, node.target, [node.body])
            over_requests |= _holds_request(element)
            # over part of the running requests (`running[:-1]`): the loop skips the others
            part = Val.some_of(iterable)

            def bind(s: State, e: Val.Value = element, part: bool = part) -> State:
                s = self.assign(node.target, e, s)
                return skipping(s, id(node)) if part else s

            ranged = isinstance(iterable, Val.Range)  # `for _ in range(limit):` may drive a machine
            machine = {n for n in _machine_names(node) if _decided_state(state.env.get(n))} if ranged else set()
            if machine:
                body = self._machine_steps(node.body, [state], bind, machine)
            else:
                body = self._loop_body(node.body, [state], bind)
            if iterable is None and _interprets(node):
                body = _forget_effects(body, state)
            flow.add(body, normal=False)
            flow.normal += body.normal + body.cont
        born = self.loops.pop()
        self.loop_nodes.pop()
        depth = len(self.loops)
        if id(node) in self.running_mutated and live_running(node.iter):
            # `for req in scheduler.running: ... scheduler.running.remove(req)`: the list shifts
            # under the loop, which skips the request after each one removed
            flow.normal = [skipping(s, id(node)) for s in flow.normal]
        if not born and not over_requests:
            flow.normal, flow.brk = clear_skips(flow.normal, id(node)), clear_skips(flow.brk, id(node))
        if not born:
            flow.normal = fill_accumulators(states, flow.normal)
        else:
            # `for req in running: ...; break` (also under an `if`): the loop ends for the
            # requests after this one (not an `if ids:` guard)
            flow.brk = [skipping(s, id(node)) for s in flow.brk]
        exits = promote(flow.normal, born, depth)
        flow.brk = promote(flow.brk, born, depth)
        after = self.suite(node.orelse.body, exits) if node.orelse else Flow(normal=exits)
        out = Flow(
            normal=after.normal + flow.brk, ret=promote(flow.ret, born, depth) + after.ret, exc=flow.exc + after.exc
        )
        out.brk, out.cont = after.brk, after.cont
        out.normal = dedupe(out.normal)
        return out

    def _machine_steps(
        self, body: cst.BaseSuite, states: list[State], bind: Callable[[State], State], machine: set[str]
    ) -> Flow:
        """`state = Step.SCAN; for _ in range(limit): ... state = table[state] ...`: the body
        step by step while every path knows the state it is in (`machine`: the names the body
        sets that hold it); a path still going after _MACHINE_STEPS steps leaves as the range
        ran out, one on which the state stops being known runs the rest as any loop."""
        flow, going = Flow(), [bind(s) for s in states]
        for _ in range(_MACHINE_STEPS):
            step = self.suite(body, going)
            flow.brk += step.brk
            flow.ret += step.ret
            flow.exc += step.exc
            going = dedupe(retire(step.normal + step.cont, set(self.loops[-1])))
            lost = [s for s in going if not all(_decided_state(s.env.get(name)) for name in machine)]
            going = [bind(s) for s in going if not any(s is each for each in lost)]
            if lost:
                rest = self._loop_body(body, lost, bind)
                flow.brk, flow.ret, flow.exc = flow.brk + rest.brk, flow.ret + rest.ret, flow.exc + rest.exc
                flow.normal += rest.normal + rest.cont
            if not going:
                break
        flow.normal += going
        return flow

    def _unrolled(self, node: cst.For, items: tuple[Val.Value, ...], state: State) -> Flow:
        """The body once per item of a literal sequence, in order (its `normal` exits are the
        paths that ran every item; a `break` leaves with the state it had)."""
        flow = Flow()
        current = [state]
        for item in items:
            body = self.suite(node.body, [self.assign(node.target, item, s) for s in current])
            flow.brk += body.brk
            flow.ret += body.ret
            flow.exc += body.exc
            current = dedupe(body.normal + body.cont)
        flow.normal += current
        return flow

    def _while(self, node: cst.While, states: list[State]) -> Flow:
        states = tag_entries(states, len(self.loops))
        self.loops.append([])
        self.loop_nodes.append(id(node))
        self.while_loops.add(id(node))
        if _removes_running(node.body):
            self.popping_loops.add(id(node))
        self.loop_ends.add(_last_statement(node.body))
        stepped = self._stepped(node, states)
        if stepped is not None:
            body, left = stepped
        else:
            entered = [s for _, s in self.ev_all(node.test, states)]
            counter = self._counter(node.test, entered)
            body = self._loop_body(node.body, entered, counter or (lambda s: s))
            left = [s for _, s in self.ev_all(node.test, body.normal + body.cont)] or entered
        if _shifts_under_index(node):
            # `while i < len(running): ...; del running[i]; i += 1`: the list shifts under the
            # index, which skips the request after each one removed
            left = [skipping(s, id(node)) for s in left]
        born = self.loops.pop()
        self.loop_nodes.pop()
        depth = len(self.loops)
        if born and isinstance(node.test, cst.Comparison):
            # `while i < n: req = running[i]; ...; break`: the loop ends for the requests after
            # this one (a `while True:` or `while queue:` loop may break when none is left)
            body.brk = [skipping(s, id(node)) for s in body.brk]
        if not born:  # `while i < len(blocks): ids.add(...)`: as a `for` over the blocks
            left = fill_accumulators(states, left)
        exits = promote(left, born, depth)
        after = self.suite(node.orelse.body, exits) if node.orelse else Flow(normal=exits)
        out = Flow(
            normal=after.normal + promote(body.brk, born, depth),
            ret=promote(body.ret, born, depth) + after.ret,
            exc=body.exc + after.exc,
        )
        out.brk, out.cont = after.brk, after.cont
        out.normal = dedupe(out.normal)
        return out

    def _counter(self, test: cst.BaseExpression, states: list[State]) -> Callable[[State], State] | None:
        """`j = first; while j < len(blocks): ... blocks[j] ...; j += 1`: on every pass `j` is a
        position from where it starts to the end, as `for j in range(first, len(blocks))` (its
        binder for each pass); None for another loop or when the paths disagree."""
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and states):
            return None
        pair = test.comparisons[0]
        if not (isinstance(pair.operator, cst.LessThan) and isinstance(test.left, cst.Name)):
            return None
        name = test.left.value
        starts = {Val.num_kind(s.env.get(name)) for s in states}
        stops = {self.ev_pure(pair.comparator, s) for s in states}
        if len(starts) != 1 or len(stops) != 1 or None in starts:
            return None
        (start,), (stop,) = starts, stops
        if not (isinstance(stop, Val.Length) and isinstance(stop.of, Val.Ids)):
            return None
        position = Val.Index(stop.of, Val.start_from_index(start))
        return lambda s: s.bind(name, position)

    def _stepped(self, node: cst.While, states: list[State]) -> tuple[Flow, list[State]] | None:
        """`while phase is not Phase.DONE: phase = step(phase)`: a loop whose test the walk
        decides on every path (a comparison of enum members) runs step by step, each path
        leaving when its test is false: (the body's flow, the states leaving), or None
        when the test is not decided (then the body runs twice, see _loop_body). A path
        still going after _MACHINE_STEPS steps, or on which the test stops being decided,
        leaves there."""
        if not isinstance(node.test, cst.Comparison):
            return None
        tested = self.ev_all(node.test, states)
        if not tested or any(Val.truth(value) is None for value, _ in tested):
            return None
        flow, left = Flow(), []
        for _ in range(_MACHINE_STEPS):
            going = [s for value, s in tested if Val.truth(value)]
            left += [s for value, s in tested if not Val.truth(value)]
            if not going:
                return flow, left
            step = self.suite(node.body, going)
            flow.brk += step.brk
            flow.ret += step.ret
            flow.exc += step.exc
            tested = self.ev_all(node.test, dedupe(retire(step.normal + step.cont, set(self.loops[-1]))))
            if any(Val.truth(value) is None for value, _ in tested):
                break
        return flow, left + [s for _, s in tested]

    def _try(self, node: cst.Try | cst.TryStar, states: list[State]) -> Flow:
        # an exception may leave the body at a statement that calls what the walk cannot follow
        # (or raises: its own flow's `exc`), leaving the state that statement started from; a
        # statement the walk followed whole raises only where it says so (precision first: an
        # exception the runtime never sees is no path)
        starts: list[list[State]] = []
        body = Flow(normal=states)
        may_raise = False  # the last statement (part of its effects done when it raises)
        thrown = len(self.thrown)
        for statement in _statements(node.body):
            if not body.normal:
                break
            unfollowed = self.unfollowed
            step = self.statement(statement, body.normal)
            may_raise = self.unfollowed != unfollowed or _evicts_in(statement)
            if may_raise:
                starts.append(_eviction_attempted(body.normal, step.normal))
            body.normal = step.normal
            body.add(step, normal=False)
        # what a `raise` in a function the body called left (`self._resume()` raising AbortInstead)
        body.exc += self.thrown[thrown:]
        del self.thrown[thrown:]
        raised = [s for start in starts for s in start] + (body.normal if may_raise else []) + body.exc
        flow = self.suite(node.orelse.body, body.normal) if node.orelse else Flow(normal=body.normal)
        flow.brk += body.brk
        flow.cont += body.cont
        flow.ret += body.ret
        if node.handlers:
            raised = dedupe(raised)
            for handler in node.handlers:
                flow.add(self.suite(handler.body, raised))
        else:
            flow.exc += raised
        if not node.finalbody:
            return flow
        final = Flow()
        for attr in ("normal", "brk", "cont", "ret", "exc"):
            entering: list[State] = getattr(flow, attr)
            if not entering:
                continue
            out = self.suite(node.finalbody.body, dedupe(entering))
            getattr(final, attr).extend(out.normal)
            final.ret += out.ret
            final.exc += out.exc
        return final

    # -- binding -----------------------------------------------------------------------------------
    def assign(self, target: cst.BaseExpression, value: Val.Value, state: State) -> State:
        if isinstance(target, (cst.Name, cst.Attribute)):
            state = forget_truth(state, ir.dotted_name(target))  # a flag set anew is tested anew
        if isinstance(target, cst.Name):
            return state.bind(target.value, value)
        if isinstance(target, cst.Attribute):
            return self._assign_attribute(target, value, state)
        if isinstance(target, (cst.Tuple, cst.List)):
            elements = [el.value for el in target.elements]
            parts = value.items if isinstance(value, Val.Seq) and len(value.items) == len(elements) else None
            for index, element in enumerate(elements):
                starred = isinstance(element, cst.StarredElement)
                if isinstance(element, cst.StarredElement):
                    element = element.value
                part = (
                    parts[index] if parts else (value if isinstance(value, Val.Ids) else None)
                )  # (group,) = block ids
                if isinstance(value, Val.Managers) and not starred:  # `full, *_ = managers`: as `managers[0]`
                    part = Val.Manager("first" if index == 0 else "all")
                state = self.assign(element, part, state)
            return state
        if isinstance(target, cst.Subscript):
            return self._assign_item(target, value, state)
        return state

    def _assign_item(self, target: cst.Subscript, value: Val.Value, state: State) -> State:
        """`table["key"] = value`; `by_req[req.request_id] = ids` into a dict that was empty or
        is filled so: a Keyed dict (its values are what any key holds)."""
        name = ir.dotted_name(target.value)
        old = state.env.get(name) if name else None
        if name is None or len(target.slice) != 1 or not isinstance(old, (Val.Table, Val.Keyed)):
            return state
        index_node = getattr(target.slice[0].slice, "value", None)
        key = self.ev_pure(index_node, state) if index_node is not None else None
        if isinstance(old, Val.Table) and isinstance(key, Val.Str):
            items = (*(kv for kv in old.items if kv[0] != key.text), (key.text, value))
            return state.bind(name, Val.Table(items))
        born = tuple(k for loop in self.loops for k in loop)
        if isinstance(old, Val.Table) and not old.items and born and Val.mentions(key, born) and not _holds_ids(value):
            # `by_id[req.request_id] = boundary` in the loop over the requests: an entry per request
            return state.bind(name, Val.PerRequest(Val.Each(Val.Seq((key, value)), born)))
        if isinstance(old, Val.Keyed):
            return state.bind(name, Val.Keyed(Val.join(old.values, value)))
        if not old.items and Val.constant(key) is None:
            return state.bind(name, Val.Keyed(value))
        return state

    def _assign_attribute(self, target: cst.Attribute, value: Val.Value, state: State) -> State:
        base = self.ev_pure(target.value, state)
        attr = target.attr.value
        if isinstance(base, Val.Instance) and self._descriptor_set(base.cls, attr):
            # `view.in_flight = 0` through a descriptor's `__set__`: it may write any request's counter
            state = self.may_reset(None, state, f"`{ir.code_of(target)}` is written through a descriptor")
        if attr == V.NUM_COMPUTED_TOKENS:
            state = self.rewind(base, target, state)
        if attr in V.ALL_COUNTER_FIELDS and base is None and value in (Val.ZERO, None):
            state = self.may_reset(None, state, f"`{ir.code_of(target)}` is written on an object it cannot tell")
            state = not_at_zero(state, None, attr)
        elif attr in V.ALL_COUNTER_FIELDS and value == Val.ZERO:
            state = self.reset(Val.key_of(base), attr, state)
        elif attr in V.ALL_COUNTER_FIELDS:  # set again: no longer known to be 0
            key = Val.key_of(base)
            state = state.replace(zeroed=frozenset(z for z in state.zeroed if z != (key, attr)))
            state = not_at_zero(state, key, attr) if key is not None else state
        name = ir.dotted_name(target)
        return state.bind(name, value) if name else state


def _removes_running(body: cst.BaseSuite) -> bool:
    """Whether `body` removes from the running queue itself (`del running[i]`, `running.pop()`,
    `running.remove(req)`)."""
    for each in all_nodes(body):
        if isinstance(each, cst.Del) and isinstance(each.target, cst.Subscript) and live_running(each.target.value):
            return True
        if (
            isinstance(each, cst.Call)
            and isinstance(each.func, cst.Attribute)
            and each.func.attr.value in ("remove", "pop")
            and live_running(each.func.value)
        ):
            return True
    return False


def _shifts_under_index(node: cst.While) -> bool:
    """`while i < len(scheduler.running):` whose body removes from the running queue itself
    (`del running[i]`, `running.remove(req)`, `running.pop(i)`) and steps `i` on (`i += 1`)."""
    test = node.test
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Name)):
        return False
    bound = test.comparisons[0].comparator
    if not (
        isinstance(test.comparisons[0].operator, cst.LessThan)
        and isinstance(bound, cst.Call)
        and ir.called_name(bound.func) == "len"
        and len(bound.args) == 1
        and live_running(bound.args[0].value)
    ):
        return False
    counter = test.left.value
    steps = any(
        isinstance(each, cst.AugAssign)
        and isinstance(each.target, cst.Name)
        and each.target.value == counter
        and isinstance(each.operator, cst.AddAssign)
        for each in all_nodes(node.body)
    )
    return steps and _removes_running(node.body)


def _machine_names(node: cst.For) -> set[str]:
    """The names a loop's body sets (outside nested functions) while its target goes unread
    (`for _ in range(limit):`): those that may hold a state machine's current state."""
    if not (isinstance(node.target, cst.Name) and node.target.value not in names_in(node.body)):
        return set()
    names: set[str] = set()
    for each in all_nodes(node.body):
        if isinstance(each, cst.Assign):
            for target in each.targets:
                names.update(target_names(target.target))
    return names


def _decided_state(value: Val.Value) -> bool:
    """A machine's state the walk knows: an enum member, a string, a callable or an object."""
    return isinstance(value, (Val.Member, Val.Str, Val.Instance)) or Val.is_callable(value)


def _absence_of(test: cst.BaseExpression) -> cst.Name | None:
    """`blocks is None`, `not blocks`: the name tested."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return test.expression if isinstance(test.expression, cst.Name) else None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Name):
        pair = test.comparisons[0]
        if (
            isinstance(pair.operator, cst.Is)
            and isinstance(pair.comparator, cst.Name)
            and pair.comparator.value == "None"
        ):
            return test.left
    return None


def _callables(iterable: Val.Seq) -> bool:
    """A literal tuple or list of callables, or of the steps of a plan (`(Op.EVICT, reqs)`,
    `Evict(reqs)`), short enough to run item by item."""
    return 0 < len(iterable.items) <= UNROLLED and all(
        Val.is_callable(item) or _plan_step(item) for item in iterable.items
    )


def _nothing_in(iterable: Val.Value) -> bool:
    """A literal empty tuple or list, or ids known to be none."""
    return (isinstance(iterable, Val.Seq) and not iterable.items) or Val.is_empty_ids(iterable)


def _plan_step(item: Val.Value) -> bool:
    """A record, an enum member, or a tuple naming a step by one of them or a string."""
    if isinstance(item, (Val.Instance, Val.Member)):
        return True
    return isinstance(item, Val.Seq) and any(isinstance(part, (Val.Member, Val.Str)) for part in item.items)


def _holds_ids(value: Val.Value) -> bool:
    return isinstance(value, Val.Ids) or (isinstance(value, Val.Seq) and any(map(_holds_ids, value.items)))


def _in_flight_positive(test: cst.BaseExpression) -> bool:
    """`req.num_in_flight_tokens`, `req.num_in_flight_tokens > 0` (`!= 0`, `0 < ...`): true
    exactly for a request with tokens in flight (a dirty tail)."""
    if isinstance(test, cst.Attribute):
        return test.attr.value == V.NUM_IN_FLIGHT_TOKENS
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    left, pair = test.left, test.comparisons[0]
    right, op = pair.comparator, pair.operator
    zero_right = isinstance(right, cst.Integer) and right.value == "0"
    zero_left = isinstance(left, cst.Integer) and left.value == "0"
    if isinstance(left, cst.Attribute) and left.attr.value == V.NUM_IN_FLIGHT_TOKENS and zero_right:
        return isinstance(op, (cst.GreaterThan, cst.NotEqual))
    if isinstance(right, cst.Attribute) and right.attr.value == V.NUM_IN_FLIGHT_TOKENS and zero_left:
        return isinstance(op, (cst.LessThan, cst.NotEqual))
    return False


def _interprets(node: cst.For) -> bool:
    """`for op in plan: if isinstance(op, Evict): evict(...) elif isinstance(op, Abort): ...`:
    a loop whose body picks what to do by the item (an `if` or `match` on it) and whose
    body evicts on some branch."""
    names = set(target_names(node.target))
    picks = any(
        (isinstance(n, cst.If) and names & names_in(n.test))
        or (isinstance(n, cst.Match) and names & names_in(n.subject))
        for n in all_nodes(node.body)
    )
    return picks and any(
        isinstance(n, cst.Call) and ir.called_name(n.func) in V.EVICT_BY_BLOCK for n in all_nodes(node.body)
    )


def _forget_effects(body: Flow, entry: State) -> Flow:
    """Over items the walk cannot see (a plan computed elsewhere), the order and number of
    the steps a loop like `_interprets`'s runs are unknown: the frees and unreset preempts
    its body made are dropped from its exits, which may have evicted any tail (unknown
    never produces a finding)."""

    def forget(s: State) -> State:
        return covered(s.replace(freed=s.freed & entry.freed, pending=s.pending & entry.pending))

    out = Flow(
        normal=[forget(s) for s in body.normal],
        ret=[forget(s) for s in body.ret],
        exc=[forget(s) for s in body.exc],
    )
    out.brk, out.cont = [forget(s) for s in body.brk], [forget(s) for s in body.cont]
    return out


def _holds_request(element: Val.Value) -> bool:
    """A loop element that is a running request (or a tuple holding one: `for req, first in
    pairs`), not an item of a queue the walk cannot see into."""
    if isinstance(element, Val.Req):
        return not element.key.startswith("q:")
    return isinstance(element, Val.Seq) and any(_holds_request(item) for item in element.items)


def _last_statement(body: cst.BaseSuite) -> int:
    """id() of the last statement of a loop's body (0 for a body on the loop's line)."""
    return id(body.body[-1]) if isinstance(body, cst.IndentedBlock) and body.body else 0


def _bound(test: cst.BaseExpression) -> cst.BaseExpression:
    """The name an assignment expression in a test binds (`if (ids := tail()):` tests `ids`),
    else the test itself."""
    return test.target if isinstance(test, cst.NamedExpr) else test


def _tests_running(test: cst.BaseExpression) -> bool:
    """`req.status == RequestStatus.RUNNING` (or `is`): true of every request of the running
    queue, so no gate: the loop's other iterations are the same requests."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    target = test.comparisons[0]
    sides = (test.left, target.comparator)
    return (
        isinstance(target.operator, (cst.Equal, cst.Is))
        and any(isinstance(side, cst.Attribute) and side.attr.value == "status" for side in sides)
        and any(isinstance(side, cst.Attribute) and side.attr.value == "RUNNING" for side in sides)
    )


def _evicts_in(statement: Statement) -> bool:
    """Whether `statement` calls an eviction (it may fail: see _eviction_attempted)."""
    return any(
        isinstance(node, cst.Call) and ir.called_name(node.func) in V.EVICT_BY_BLOCK for node in all_nodes(statement)
    )


def _eviction_attempted(before: list[State], after: list[State]) -> list[State]:
    """The states an exception out of a `try` body's statement leaves (`before`, the ones it
    started from). When every path through the statement evicts (`after`), the exception is
    the eviction (or what computes its ids) failing: an `except` clause that goes on (logs,
    then aborts) is as good as the eviction could be, so those states count as having
    evicted (precision first: the runtime never sees that path). An exception out of an
    earlier statement still skips the eviction."""
    known = frozenset(k for s in before for k, _ in s.evicted)
    if not after or not all({k for k, _ in s.evicted if not k.startswith("#")} - known for s in after):
        return before
    return [covered(s) for s in before]


def _empty_ids_test(test: cst.BaseExpression, state: State) -> bool:
    """`not ids` (also `not (ids := ...)`) where `ids` holds block ids: true when there is
    none, so a request skipped on it has nothing to evict."""
    if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
        return False
    inner = _bound(test.expression)
    name = ir.dotted_name(inner) if isinstance(inner, (cst.Name, cst.Attribute)) else None
    return name is not None and isinstance(state.env.get(name), Val.Ids)


def _evicts_what_it_tests(node: cst.If, body: cst.CSTNode) -> bool:
    """`if dirty:` whose body passes `dirty` to an eviction: with `dirty` unknown, the path
    where it is empty had nothing to evict (as `if ids:` with ids the walk knows). Also
    `if ctx.dirty:`, `if len(dirty) > 0:` (`!= 0`, `>= 1`), and a flag bound once to such a
    test in the function (`ok = len(dirty) > 0; if ok:`, `body`: the function's)."""
    given = _evicted_names(node.body)
    if not given:
        return False
    test = _bound(node.test)
    tested = _emptiness_of(test)
    if tested in given or _count_of_given(test, given):
        return True
    if tested is not None and tested in _iterated(node.body):  # `if buf: for b in buf: s.add(b)` then evict(s)
        return True
    flag = test.value if isinstance(test, cst.Name) else None
    value = bound_once(body, flag) if flag is not None else None
    if value is not None and _emptiness_of(value) in given:
        return True
    return flag is not None and _flags_adds(body, flag, given)


def _flags_adds(body: cst.CSTNode, flag: str, given: set[str | None]) -> bool:
    """`had_tail = False`, then `evict.add(b); had_tail = True` in a loop: `flag` is set to
    True only beside an add to the ids evicted (`given`), else to False: where it is still
    False nothing was added, so there is nothing to evict."""
    raised = 0
    for suite in all_nodes(body):
        if not isinstance(suite, (cst.IndentedBlock, cst.Module)):
            continue
        smalls = [s for line in suite.body if isinstance(line, cst.SimpleStatementLine) for s in line.body]
        for small in smalls:
            if not (
                isinstance(small, cst.Assign)
                and [t.target for t in small.targets if isinstance(t.target, cst.Name) and t.target.value == flag]
            ):
                continue
            if not isinstance(small.value, cst.Name) or small.value.value not in ("True", "False"):
                return False
            if small.value.value == "True":
                raised += 1
                if not any(_adds_to(other, given) for other in smalls):
                    return False
    return raised > 0


def _adds_to(small: cst.BaseSmallStatement, given: set[str | None]) -> bool:
    """`ids.add(...)`, `ids.update(...)`, `ids.append(...)`, `ids |= ...` to a name in `given`."""
    if isinstance(small, cst.AugAssign):
        return ir.dotted_name(small.target) in given
    call = small.value if isinstance(small, cst.Expr) else None
    return (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value in ("add", "update", "append", "extend")
        and ir.dotted_name(call.func.value) in given
    )


def _tests_known_ids(test: cst.BaseExpression, state: State) -> bool:
    """Whether `test` is the emptiness of a name bound to block ids the walk knows (the
    guard reads those; only unknown ones are taken as "nothing to evict when empty")."""
    tested = _emptiness_of(_bound(test))
    return tested is not None and isinstance(state.env.get(tested), Val.Ids)


def _array_size_of(test: cst.BaseExpression) -> cst.Name | None:
    """`ids.size` of an array, `ids.numel()` / `ids.nelement()` of a tensor: `ids`."""
    if isinstance(test, cst.Attribute) and test.attr.value == "size" and isinstance(test.value, cst.Name):
        return test.value
    if (
        isinstance(test, cst.Call)
        and not test.args
        and isinstance(test.func, cst.Attribute)
        and test.func.attr.value in ("numel", "nelement")
        and isinstance(test.func.value, cst.Name)
    ):
        return test.func.value
    return None


def _length_test(test: cst.BaseExpression) -> tuple[cst.BaseExpression, bool] | None:
    """`len(x) == 0` (`< 1`, `<= 0`): (x, True), true when x is empty; `len(x) > 0` (`!= 0`,
    `>= 1`): (x, False), true when it is not; None for another test."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    operator, right = test.comparisons[0].operator, test.comparisons[0].comparator
    left = test.left
    if not (
        isinstance(right, cst.Integer)
        and isinstance(left, cst.Call)
        and ir.called_name(left.func) == "len"
        and len(left.args) == 1
    ):
        return None
    pair = (type(operator), right.value)
    if pair in _NONEMPTY_RIGHT:
        return left.args[0].value, False
    if pair in _EMPTY_RIGHT:
        return left.args[0].value, True
    return None


def _evicted_names(root: cst.CSTNode) -> set[str | None]:
    """The dotted names in the arguments of the evictions under `root`."""
    return {
        ir.dotted_name(n)
        for call in all_nodes(root)
        if isinstance(call, cst.Call) and ir.called_name(call.func) in V.EVICT_BY_BLOCK
        for arg in call.args
        for n in all_nodes(arg.value)
        if isinstance(n, (cst.Name, cst.Attribute))
    } - {None}


def _iterated(root: cst.CSTNode) -> set[str | None]:
    """The dotted names loops and comprehensions under `root` iterate."""
    return {ir.dotted_name(n.iter) for n in all_nodes(root) if isinstance(n, (cst.For, cst.CompFor))} - {None}


def _returns_when_empty(node: cst.If, body: cst.CSTNode) -> bool:
    """`if not ids: return` (also `if not (n := len(ids)): return 0`) in a function that later
    evicts `ids`: with `ids` unknown, the path that returns had nothing to evict (not a
    `continue`: it skips one request of a loop, not every one)."""
    test = node.test
    if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
        return False
    inner = test.expression.value if isinstance(test.expression, cst.NamedExpr) else test.expression
    tested = _emptiness_of(inner)
    lines = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    leaves = (
        len(lines) == 1
        and isinstance(lines[0], cst.SimpleStatementLine)
        and all(isinstance(small, cst.Return) for small in lines[0].body)
    )
    return tested is not None and leaves and tested in _evicted_names(body)


def _count_of_given(test: cst.BaseExpression, given: set[str | None]) -> bool:
    """`if book.block_count > 0: evict(book.block_set())`: a count kept by hand on the object
    whose ids are evicted (not `self`'s: `if self.resume:` is a switch)."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    operator, right = test.comparisons[0].operator, test.comparisons[0].comparator
    if not (isinstance(right, cst.Integer) and (type(operator), right.value) in _NONEMPTY_RIGHT):
        return False
    counted = ir.dotted_name(test.left) if isinstance(test.left, cst.Attribute) else None
    owner = counted.rsplit(".", 1)[0] if counted else None
    return owner is not None and owner != "self" and owner in given


def _emptiness_of(test: cst.BaseExpression) -> str | None:
    """The dotted name whose emptiness `test` is: `ids`, `ctx.ids`, `len(ids)`, `bool(ids)`,
    `len(ids) > 0`, `len(ids) != 0`, `len(ids) >= 1` (or the same written the other way round);
    an array's `ids.size`, `ids.numel()`, `ids.size > 0`."""
    sized = _array_size_of(test)
    if sized is not None:
        return sized.value
    if isinstance(test, (cst.Name, cst.Attribute)):
        return ir.dotted_name(test)
    if isinstance(test, cst.Call) and ir.dotted_name(test.func) in ("len", "bool") and len(test.args) == 1:
        inner = test.args[0].value
        return ir.dotted_name(inner) if isinstance(inner, (cst.Name, cst.Attribute)) else None
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    operator, right = test.comparisons[0].operator, test.comparisons[0].comparator
    bound = _NONEMPTY_RIGHT if isinstance(right, cst.Integer) else _NONEMPTY_LEFT
    counted, number = (test.left, right) if isinstance(right, cst.Integer) else (right, test.left)
    if not isinstance(number, cst.Integer) or (type(operator), number.value) not in bound:
        return None
    return _emptiness_of(counted) if isinstance(counted, (cst.Call, cst.Attribute)) else None


#: `len(x) OP n` (and `n OP len(x)`) that hold exactly when x is not empty
_NONEMPTY_RIGHT = {(cst.GreaterThan, "0"), (cst.NotEqual, "0"), (cst.GreaterThanEqual, "1")}
_EMPTY_RIGHT = {(cst.Equal, "0"), (cst.LessThan, "1"), (cst.LessThanEqual, "0")}
_NONEMPTY_LEFT = {(cst.LessThan, "0"), (cst.NotEqual, "0"), (cst.LessThanEqual, "1")}
