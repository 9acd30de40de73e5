"""FT009 placeholder-underflow."""

from __future__ import annotations

import inspect
from collections.abc import Sequence

import libcst as cst

from ftlint.analysis.facts import CounterDecrementedAtZero
from ftlint.core import vocabulary as V
from ftlint.lint.rule import Invalid, Rule, Valid
from ftlint.syntax import ir

_EVICT = """def evict_tails(sched):
    kvm = sched.kv_cache_manager
    for req in sched.running:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        for mgr in kvm.coordinator.single_type_managers:
            kvm.evict_blocks({b.block_id for b in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]})

"""


def _with_evict(code: str) -> str:
    """An example: the tail eviction its handler calls (so that it runs clean on vLLM), then `code`."""
    return "\n" + _EVICT + inspect.cleandoc(code) + "\n"


class PlaceholderUnderflow(Rule):
    """
    ## What it does
    Flags, in fault-path code (a fault handler and the code it reaches), a decrement of
    a request's `num_output_placeholders` (`req.num_output_placeholders -= n`, or
    `= req.num_output_placeholders - n`) where that count is known to be 0: set to 0
    earlier, or, on vLLM >= 0.27, cleared by `_preempt_request` / `preempt_request` of
    that request (vLLM 0.26's preempt leaves it set: no finding there). The handler is
    followed into the project helpers it calls: a count set to 0 there (also through
    `setattr`, `vars(req).update()` or a helper's `**fields`), or decremented there,
    counts, where every path reaching the decrement knows it is 0. A decrement inside an
    `if` that tests `num_output_placeholders`, or written as `max(0, ...)`, is not
    flagged; a request passed to a call that is not followed, or rebound, is no longer
    known to be 0. The API generation comes from `[tool.ftlint] vllm-api`, else
    the project's `Request` class, else the fields the code names, else the installed
    vLLM. The rule stays silent where it cannot tell the count is 0 (a decrement before
    the preempt may be right with async scheduling, where a lost step left a placeholder).

    ## Why is this bad?
    `num_output_placeholders` counts the output frames still owed to a request. A handler
    that "accounts for the lost frame" by decrementing it after the preempt (or after
    zeroing it) takes it below 0: the scheduler then believes frames were delivered twice.
    The runtime verifier reports it as FTR04 (`placeholder-underflow`); vLLM before 0.33
    asserts `num_output_placeholders >= 0` on the next output and stops the engine.

    ## Example
    ```python
    def on_fault(self, exc):
        for req in list(self.scheduler.running):
            self.scheduler._preempt_request(req, 0.0)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
            req.num_output_placeholders -= 1
    ```

    Use instead:
    ```python
    def on_fault(self, exc):
        for req in list(self.scheduler.running):
            self.scheduler._preempt_request(req, 0.0)  # it sets num_output_placeholders = 0
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
    ```
    """

    CODE = "FT009"
    NAME = "placeholder-underflow"
    MESSAGE = "Fault path decrements `num_output_placeholders` where it is 0: the count goes below 0"

    VALID = [
        Valid(
            _with_evict(
                """
            class Sentinel:
                def on_fault(self, exc):
                    sched = self.engine.scheduler
                    evict_tails(sched)
                    for req in list(sched.running):
                        sched._preempt_request(req, 0.0)
                        req.num_in_flight_tokens = 0
                        req.num_stale_output_tokens = 0
                        if req.num_output_placeholders > 0:
                            req.num_output_placeholders -= 1
            """
            ),
            name="decrement-guarded-by-a-test",
        ),
        Valid(
            _with_evict(
                """
            class Sentinel:
                def on_fault(self, exc):
                    sched = self.engine.scheduler
                    evict_tails(sched)
                    for req in list(sched.running):
                        sched._preempt_request(req, 0.0)
                        req.num_in_flight_tokens = 0
                        req.num_stale_output_tokens = 0
                        req.num_output_placeholders = max(0, req.num_output_placeholders - 1)
            """
            ),
            name="decrement-clamped-at-zero",
        ),
        Valid(
            _with_evict(
                """
            class Sentinel:
                def on_fault(self, exc):
                    sched = self.engine.scheduler
                    evict_tails(sched)
                    while sched.running:
                        req = sched.running.pop()
                        sched._preempt_request(req, 0.0)  # 0.26: the preempt leaves the lost step's placeholder
                        req.num_in_flight_tokens = 0
                        req.num_output_placeholders -= 1
            """
            ),
            config='vllm-api = "0.26"',
            name="older-api-preempt-leaves-the-placeholder",
        ),
        Valid(
            """
            class Scheduler:
                def _update_request_with_output(self, request, new_token_ids):
                    request.num_output_placeholders = 0
                    request.num_output_placeholders -= len(new_token_ids)
            """,
            name="not-a-fault-path",
        ),
        Valid(
            _with_evict(
                """
            class Sentinel:
                def on_fault(self, exc):
                    sched = self.engine.scheduler
                    evict_tails(sched)
                    for req in list(sched.running):
                        sched._preempt_request(req, 0.0)
                        req.num_in_flight_tokens = 0
                        req.num_stale_output_tokens = 0
                        self._owe_the_lost_frame(req)
                        req.num_output_placeholders -= 1

                def _owe_the_lost_frame(self, req):
                    req.num_output_placeholders += 1
            """
            ),
            name="a-helper-sets-it-again-before-the-decrement",
        ),
    ]
    INVALID = [
        Invalid(
            _with_evict(
                """
            class Sentinel:
                def on_fault(self, exc):
                    sched = self.engine.scheduler
                    evict_tails(sched)
                    for req in list(sched.running):
                        sched._preempt_request(req, 0.0)
                        req.num_in_flight_tokens = 0
                        req.num_stale_output_tokens = 0
                        req.num_output_placeholders -= 1  # "the lost frame"
            """
            ),
            expect=((16, 13, "`_preempt_request()` set it to 0"),),
            name="decrement-after-the-preempt",
        ),
        Invalid(
            _with_evict(
                """
            class Sentinel:
                def on_fault(self, exc):
                    sched = self.engine.scheduler
                    evict_tails(sched)
                    while sched.running:
                        req = sched.running.pop()
                        sched._preempt_request(req, 0.0)
                        req.num_in_flight_tokens = 0
                        req.num_output_placeholders = 0
                        req.num_output_placeholders = req.num_output_placeholders - 1
            """
            ),
            config='vllm-api = "0.26"',
            expect=((17, 13, "set to 0 above"),),
            name="older-api-zeroed-then-decremented",
        ),
        Invalid(
            _with_evict(
                """
            class Sentinel:
                def on_fault(self, exc):
                    sched = self.engine.scheduler
                    evict_tails(sched)
                    for req in list(sched.running):
                        sched._preempt_request(req, 0.0)
                        req.num_in_flight_tokens = 0
                        req.num_stale_output_tokens = 0
                        self._account_for_the_lost_frame(req)

                def _account_for_the_lost_frame(self, req):
                    req.num_output_placeholders -= 1
            """
            ),
            expect=((19, 9, "`_preempt_request()` set it to 0"),),
            name="decrement-in-a-helper-after-the-preempt",
        ),
        Invalid(
            _with_evict(
                """
            class Sentinel:
                def on_fault(self, exc):
                    sched = self.engine.scheduler
                    evict_tails(sched)
                    while sched.running:
                        req = sched.running.pop()
                        sched._preempt_request(req, 0.0)
                        for name in ("num_in_flight_tokens", "num_output_placeholders"):
                            setattr(req, name, 0)
                        req.num_output_placeholders -= 1
            """
            ),
            config='vllm-api = "0.26"',
            expect=((17, 13, "set to 0 above"),),
            name="older-api-zeroed-through-setattr-then-decremented",
        ),
    ]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        fn = self.scope(node).function
        if fn is None or not self.walked(node):
            return
        interpreter = self.context.fault_paths.interpreter
        # The path walk's facts: the zeroing and the decrement also in helpers, through
        # setattr / vars() / **fields, on every path that reaches the decrement.
        reported: set[int] = set()
        for fact in interpreter.facts(fn, CounterDecrementedAtZero):
            if fact.field != _FIELD:
                continue
            why = f"`{fact.zeroed_by}()` set it to 0" if fact.zeroed_by else "set to 0 above"
            what = f"`{fact.target_text}` is decremented"
            if fact.in_helper:
                what = f"{ir.call_text(fact.node)} decrements `{fact.target_text}` (inside the helper)"
            reported.add(id(fact.node))
            self.report(fact.node, f"{what} where it is 0 ({why}){_EFFECT}")
        if not self.in_fault_path(node):
            return
        # This function's own statements, with the request written as in the source (also one
        # the walk cannot tell, `self.pending[0]`).
        walk = _Walk(zeroed_by_preempt=interpreter.generation_of(fn).preempt_copies_in_flight)
        walk.block(node.body, {})
        for target, why in walk.found:
            if id(target) not in reported:
                self.report(target, f"`{ir.code_of(target)}` is decremented where it is 0 ({why}){_EFFECT}")


_EFFECT = ": the count goes below 0, as if the lost step's output frame had been delivered twice"


_FIELD = V.NUM_OUTPUT_PLACEHOLDERS
_REQUEST_KEYWORDS = ("request", "req", "preempted_req")
#: {request text: why its num_output_placeholders is known to be 0}
Zeroed = dict[str, str]


class _Walk:
    """One function's statements in order: which requests' placeholder count is known to
    be 0, and the decrements made while it is (a join keeps only what every branch knows)."""

    def __init__(self, *, zeroed_by_preempt: bool) -> None:
        self.zeroed_by_preempt = zeroed_by_preempt
        self.found: list[tuple[cst.Attribute, str]] = []

    def suite(self, body: Sequence[cst.BaseStatement | cst.BaseSmallStatement], zero: Zeroed) -> Zeroed:
        for stmt in body:
            zero = self.statement(stmt, zero)
        return zero

    def statement(self, stmt: cst.CSTNode, zero: Zeroed) -> Zeroed:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                zero = self.small(small, zero)
            return zero
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return zero
        if isinstance(stmt, cst.If):
            guarded = _reads_field(stmt.test)
            zero = self.calls(stmt.test, zero)
            inner = {} if guarded else zero
            out = self.block(stmt.body, inner)
            other = self.statement(stmt.orelse, inner) if stmt.orelse is not None else inner
            return _join(out, other)
        if isinstance(stmt, cst.Else):
            return self.block(stmt.body, zero)
        if isinstance(stmt, (cst.For, cst.While)):
            if isinstance(stmt, cst.For):
                zero = _forget(self.calls(stmt.iter, zero), _names(stmt.target))
            elif _reads_field(stmt.test):
                zero = {}
            return _join(zero, self.block(stmt.body, zero))
        return self.compound(stmt, zero)

    def compound(self, stmt: cst.CSTNode, zero: Zeroed) -> Zeroed:
        """try, with, match: every part from what the statement starts with, then joined."""
        parts: list[cst.CSTNode] = []
        if isinstance(stmt, (cst.Try, cst.TryStar)):
            parts = [stmt.body, *stmt.handlers, *(p for p in (stmt.orelse, stmt.finalbody) if p is not None)]
        elif isinstance(stmt, cst.With):
            parts = [stmt.body]
        elif isinstance(stmt, cst.Match):
            parts = list(stmt.cases)
        else:
            return {}
        out = zero
        for part in parts:
            body = getattr(part, "body", part)
            out = _join(out, self.block(body, zero))
        return out

    def block(self, body: cst.CSTNode, zero: Zeroed) -> Zeroed:
        if isinstance(body, cst.IndentedBlock):
            return self.suite(body.body, zero)
        if isinstance(body, cst.SimpleStatementSuite):
            return self.suite(body.body, zero)
        return self.statement(body, zero)

    def small(self, node: cst.CSTNode, zero: Zeroed) -> Zeroed:
        if isinstance(node, cst.AugAssign):
            zero = self.calls(node.value, zero)
            target = node.target
            if not isinstance(target, cst.Attribute) or not _is_field(target):
                return _forget(zero, _names(target))
            if isinstance(node.operator, cst.SubtractAssign) and not _is_zero(node.value):
                return self.decrement(target, zero)
            return _drop(zero, target)
        if isinstance(node, (cst.Assign, cst.AnnAssign)):
            value = node.value
            zero = self.calls(value, zero) if value is not None else zero
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for target in targets:
                zero = self.assign(target, value, zero)
            return zero
        return self.calls(node, zero)

    def assign(self, target: cst.BaseExpression, value: cst.BaseExpression | None, zero: Zeroed) -> Zeroed:
        if not _is_field(target):
            return _forget(zero, _names(target))
        assert isinstance(target, cst.Attribute)
        if value is not None and _is_zero(value):
            return {**zero, ir.code_of(target.value): "set to 0 above"}
        if (
            isinstance(value, cst.BinaryOperation)
            and isinstance(value.operator, cst.Subtract)
            and _is_field(value.left)
            and ir.code_of(value.left) == ir.code_of(target)
            and not _is_zero(value.right)
        ):
            return self.decrement(target, zero)
        return _drop(zero, target)

    def decrement(self, target: cst.Attribute, zero: Zeroed) -> Zeroed:
        why = zero.get(ir.code_of(target.value))
        if why is not None:
            self.found.append((target, why))
        return _drop(zero, target)

    def calls(self, node: cst.CSTNode, zero: Zeroed) -> Zeroed:
        """A preempt of a request (vLLM >= 0.27) zeroes its count; a request passed to any
        other call may have its count set there: no longer known."""
        for call in _calls_in(node):
            request = _preempted(call)
            if request is not None:
                if self.zeroed_by_preempt:
                    zero = {**zero, ir.code_of(request): f"`{ir.called_name(call.func)}()` set it to 0"}
                continue
            passed = {ir.code_of(a.value) for a in call.args}
            zero = {k: v for k, v in zero.items() if k not in passed}
        return zero


class _Calls(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: list[cst.Call] = []

    def leave_Call(self, original_node: cst.Call) -> None:  # inner calls first: they run first
        self.calls.append(original_node)

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def _calls_in(node: cst.CSTNode) -> list[cst.Call]:
    visitor = _Calls()
    node.visit(visitor)
    return visitor.calls


def _preempted(call: cst.Call) -> cst.BaseExpression | None:
    if ir.called_name(call.func) not in V.PREEMPT_PRIMITIVES:
        return None
    for arg in call.args:
        if arg.keyword is None and arg.star == "":
            return arg.value
        if arg.keyword is not None and arg.keyword.value in _REQUEST_KEYWORDS:
            return arg.value
    return None


def _is_field(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value == _FIELD


def _is_zero(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Integer) and node.evaluated_value == 0


class _FieldReads(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == _FIELD:
            self.found = True


def _reads_field(node: cst.CSTNode) -> bool:
    visitor = _FieldReads()
    node.visit(visitor)
    return visitor.found


def _names(target: cst.CSTNode) -> set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {n for el in target.elements for n in _names(el.value)}
    if isinstance(target, cst.StarredElement):
        return _names(target.value)
    return set()


def _forget(zero: Zeroed, names: set[str]) -> Zeroed:
    """A rebound name is another request: what was known of the old one is gone."""
    if not names:
        return zero
    return {k: v for k, v in zero.items() if k.split(".")[0].split("[")[0] not in names}


def _drop(zero: Zeroed, target: cst.Attribute) -> Zeroed:
    key = ir.code_of(target.value)
    return {k: v for k, v in zero.items() if k != key}


def _join(a: Zeroed, b: Zeroed) -> Zeroed:
    return {k: v for k, v in a.items() if k in b}
