"""FT001 stale-output-discard."""

from __future__ import annotations

from typing import cast

import libcst as cst

from ftlint.analysis.facts import StaleFrameDropped
from ftlint.core import vocabulary as V
from ftlint.lint.rule import Invalid, Replacement, Rule, Valid
from ftlint.lint.rule_examples import EVICT_TAIL, EVICT_TAILS, with_methods
from ftlint.syntax import cstedits, ir
from ftlint.syntax import matchers as m

_FALSY = m.Integer("0") | m.Name("False") | m.Name("None")
_PREEMPT = m.Call(func=m.Name() | m.Attribute(attr=m.Name()))


class StaleOutputDiscard(Rule):
    """
    ## What it does
    Flags fault-path code that arranges to drop a request's next output frame:
    assigning a non-zero value to `<request>.async_tokens_to_discard` (vLLM <= 0.26),
    assigning `<request>.drop_stale_output = True`, or calling
    `_preempt_request(...)` / `preempt_request(...)` with `drop_stale_output=True`
    (vLLM >= 0.27), also through an alias, a `functools.partial` or
    `reset_prefix_cache(reset_running_requests=True)` (which preempts every running
    request with the flag; resetting both counters of the preempted requests afterwards
    undoes that). A preempt with the flag is not reported when every path through the
    handler had the request's `num_in_flight_tokens` at 0 before it (the preempt copies
    it into `num_stale_output_tokens`: nothing is left to drop).

    ## Why is this bad?
    After a failed step, the output frame of that step never arrives. The discard
    counter is therefore never consumed by the frame it was meant for: the first
    *good* frame after resume is dropped instead, and the request silently loses
    tokens. `reset_prefix_cache` uses this bookkeeping legitimately because there the
    in-flight frame does arrive; a fault handler must not copy it.

    ## Example
    ```python
    def on_fault(self, exc):
        for request in list(self.scheduler.running):
            self._evict_unconfirmed_tail(request)
            self.scheduler._preempt_request(request, now, drop_stale_output=True)
    ```

    Use instead:
    ```python
    def on_fault(self, exc):
        for request in list(self.scheduler.running):
            self._evict_unconfirmed_tail(request)
            self.scheduler._preempt_request(request, now)
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
    ```

    ## Fix safety
    Removing a discard assignment is a safe fix: a chained assignment keeps its other
    targets, and a value or target base that acts (`audit_log(r)`, `running.pop()`)
    stays as an expression statement; when both act, or an augmented assignment's acts,
    no fix is offered. Removing `drop_stale_output=True` from a preempt also adds the
    counter resets missing after it when the preempt is part of a simple statement line
    (elsewhere only the flag is removed); that is safe when the request argument is a
    name or an attribute chain (writing it again evaluates nothing). When the request is
    an expression that acts (`running.pop()`), the fix first binds it to a fresh name:
    that fix is unsafe (the call's callee is then looked up after its argument) and is
    applied only with `--unsafe-fixes`. A drop found through an alias, a
    `functools.partial` or `reset_prefix_cache` has no fix.
    """

    CODE = "FT001"
    NAME = "stale-output-discard"
    MESSAGE = "Fault path discards the next output frame; the failed step's frame never arrives, so the first good frame after resume is dropped"
    FIXABLE = True

    VALID = [
        Valid(
            with_methods(
                """
            class Sentinel:
                def on_fault(self, exc):
                    for req in list(self.scheduler.running):
                        self._evict_tail(req)
                        self.scheduler._preempt_request(req, 0.0)
                        req.num_in_flight_tokens = 0
                        req.num_stale_output_tokens = 0
                        req.async_tokens_to_discard = 0
                        req.drop_stale_output = False
            """,
                EVICT_TAIL,
            ),
            name="resets-and-zero-assignments",
        ),
        Valid(
            """
            class Scheduler:
                def reset_prefix_cache(self):
                    for request in self.running:
                        self._preempt_request(request, 0.0, drop_stale_output=True)
                        request.async_tokens_to_discard = request.num_output_placeholders
            """,
            name="not-a-fault-path",
        ),
        Valid(
            with_methods(
                """
            class Sentinel:
                def on_fault(self, exc):
                    sched = self.engine.scheduler
                    self._evict_tails()
                    while sched.running:
                        req = sched.running.pop()
                        req.num_in_flight_tokens = 0  # the preempt copies it: no stale token to drop
                        sched._preempt_request(req, 0.0, drop_stale_output=True)
            """,
                EVICT_TAILS,
            ),
            name="in-flight-zeroed-before-the-preempt-drops-nothing",
        ),
    ]
    INVALID = [
        Invalid(
            """
            class Sentinel:
                def on_fault(self, exc):
                    for req in self.scheduler.running:
                        req.async_tokens_to_discard = req.num_output_placeholders
            """,
            expect=((4,),),
            fixed="""
            class Sentinel:
                def on_fault(self, exc):
                    for req in self.scheduler.running:
                        pass
            """,
            name="old-api-discard",
        ),
        Invalid(
            with_methods(
                """
            class Sentinel:
                def on_fault(self, exc):
                    for req in list(self.scheduler.running):
                        self._evict_tail(req)
                        # keep the request for resume
                        self.scheduler._preempt_request(req, 0.0, drop_stale_output=True)
            """,
                EVICT_TAIL,
            ),
            expect=((6, 13),),
            fixed=with_methods(
                """
            class Sentinel:
                def on_fault(self, exc):
                    for req in list(self.scheduler.running):
                        self._evict_tail(req)
                        # keep the request for resume
                        self.scheduler._preempt_request(req, 0.0)
                        req.num_in_flight_tokens = 0
                        req.num_stale_output_tokens = 0
            """,
                EVICT_TAIL,
            ),
            name="new-api-preempt-argument",
        ),
        Invalid(
            with_methods(
                """
            class Sentinel:
                def on_fault(self, exc):
                    for req in list(self.scheduler.running):
                        self._evict_tail(req)
                        self.scheduler._preempt_request(
                            req,
                            0.0,
                            drop_stale_output=True,
                        )
            """,
                EVICT_TAIL,
            ),
            expect=((5, 13),),
            fixed=with_methods(
                """
            class Sentinel:
                def on_fault(self, exc):
                    for req in list(self.scheduler.running):
                        self._evict_tail(req)
                        self.scheduler._preempt_request(
                            req,
                            0.0,
                        )
                        req.num_in_flight_tokens = 0
                        req.num_stale_output_tokens = 0
            """,
                EVICT_TAIL,
            ),
            name="multi-line-call-keeps-its-trailing-comma",
        ),
        Invalid(
            """
            class Sentinel:
                def on_fault(self, exc):
                    self._resume_all()

                def _resume_all(self):
                    for r in self.scheduler.running:
                        r.drop_stale_output = True
            """,
            expect=((7,),),
            name="helper-in-same-class",
        ),
        Invalid(
            """
            from vllm.v1.request import RequestStatus

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    scheduler = self.engine.scheduler
                    self._evict_tails(scheduler)
                    if self.resume_on_fault:
                        for req in list(scheduler.running):
                            scheduler._preempt_request(req, 0.0, drop_stale_output=True)
                    else:
                        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
                        for req in aborted:
                            req.async_tokens_to_discard = 0

                def _evict_tails(self, scheduler):
                    scheduler.kv_cache_manager.evict_blocks(set())
            """,
            expect=((9, 17),),
            fixed="""
            from vllm.v1.request import RequestStatus

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    scheduler = self.engine.scheduler
                    self._evict_tails(scheduler)
                    if self.resume_on_fault:
                        for req in list(scheduler.running):
                            scheduler._preempt_request(req, 0.0)
                            req.num_in_flight_tokens = 0
                            req.num_stale_output_tokens = 0
                    else:
                        aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
                        for req in aborted:
                            req.async_tokens_to_discard = 0

                def _evict_tails(self, scheduler):
                    scheduler.kv_cache_manager.evict_blocks(set())
            """,
            name="abort-and-resume-branches",
        ),
        Invalid(
            with_methods(
                """
            class Sentinel:
                def on_fault(self, exc):
                    sched = self.scheduler
                    self._evict_tails()
                    while sched.running:
                        # one at a time
                        sched._preempt_request(sched.running.pop(), 0.0, drop_stale_output=True)
            """,
                EVICT_TAILS,
            ),
            expect=((7, 13),),
            # unsafe fix (--unsafe-fixes): the request is popped once, then named
            fixed=with_methods(
                """
            class Sentinel:
                def on_fault(self, exc):
                    sched = self.scheduler
                    self._evict_tails()
                    while sched.running:
                        # one at a time
                        preempted = sched.running.pop()
                        sched._preempt_request(preempted, 0.0)
                        preempted.num_in_flight_tokens = 0
                        preempted.num_stale_output_tokens = 0
            """,
                EVICT_TAILS,
            ),
            name="request-expression-bound-first",
        ),
        Invalid(
            """
            def resume_all(scheduler):
                for r in scheduler.running:
                    scheduler._preempt_request(r, 0.0, True)
            """,
            files={
                "sentinel.py": """
from example import resume_all

class EngineCoreSentinel:
    def on_fault(self, exc):
        resume_all(self.engine.scheduler)
"""
            },
            lint=("example.py",),
            expect=((3, 9),),
            name="helper-passed-alone-handler-elsewhere",
        ),
        Invalid(
            """
            from recovery import resume_all

            def on_fault(engine, exc):
                resume_all(engine.scheduler)
            """,
            files={
                "recovery.py": """
def resume_all(scheduler):
    for r in scheduler.running:
        scheduler._preempt_request(r, 0.0, True)
"""
            },
            expect=(("recovery.py", 3, 9),),
            name="helper-in-other-module",
        ),
        Invalid(
            """
            class Sentinel:
                def on_fault(self, exc):
                    # preempts every running request with drop_stale_output=True, then clears the cache
                    self.engine.scheduler.reset_prefix_cache(reset_running_requests=True)
            """,
            expect=((4, 9, "preempts every running request"),),
            name="reset-prefix-cache-preempts-with-the-flag",
        ),
    ]

    def visit_Assign(self, node: cst.Assign) -> None:
        if not self.in_fault_path(node):
            return
        for target in node.targets:
            self._check_assignment(node, target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None and self.in_fault_path(node):
            self._check_assignment(node, node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if (
            m.matches(node.target, m.Attribute(attr=m.Name(V.ASYNC_DISCARD_FIELD)))
            and m.matches(node.operator, m.AddAssign())
            and not m.matches(node.value, _FALSY)
            and self.in_fault_path(node)
        ):
            self._report_assignment(node, cast(cst.Attribute, node.target), node.value)

    def _check_assignment(
        self, node: cst.BaseSmallStatement, target: cst.BaseExpression, value: cst.BaseExpression
    ) -> None:
        if not isinstance(target, cst.Attribute) or m.matches(value, _FALSY):
            return
        if target.attr.value in (V.ASYNC_DISCARD_FIELD, V.DROP_STALE_OUTPUT):
            self._report_assignment(node, target, value)

    def _report_assignment(
        self, node: cst.BaseSmallStatement, target: cst.Attribute, value: cst.BaseExpression
    ) -> None:
        fix = _assignment_fix(node, target, value, self.parent)
        self.report(node, fix=fix or (), fix_title="Remove the discard assignment")

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        # Drops the interpreter finds that are not a preempt call spelt with the flag
        # (visit_Call): `reset_prefix_cache(reset_running_requests=True)`, an alias or a
        # `functools.partial` of a preempt with the flag.
        fn = self.scope(node).function
        if fn is None or not self.walked(node):
            return
        for fact in self.context.fault_paths.interpreter.facts(fn, StaleFrameDropped):
            if not _spelt_drop(fact.node):
                self.report(fact.node, _drop_message(fact))

    def visit_Call(self, node: cst.Call) -> None:
        if not _spelt_drop(node) or not self.in_fault_path(node):
            return
        # The abstract interpreter knows whether the request has stale tokens to drop: none
        # when num_in_flight_tokens was 0 at the preempt on every handler path (the preempt
        # copies it into num_stale_output_tokens). Code no handler walk reaches is judged
        # by the flag alone.
        if self.context.fault_paths.interpreter.drop_verdict(node) is False:
            return
        fix, unsafe = self._preempt_fix(node)
        self.report(
            node,
            fix=fix,
            fix_title="Remove `drop_stale_output=True` and reset the counters"
            + (" (binds the request to a name first)" if unsafe else ""),
            unsafe_fix=unsafe,
        )

    def _preempt_fix(self, call: cst.Call) -> tuple[list[Replacement], bool]:
        """(replacements, unsafe). The resets name the request again: in place when that
        evaluates nothing (a name, an attribute chain); otherwise the request is first
        bound to a fresh name, an unsafe fix (`running.pop()` must not pop twice)."""
        parent_of = self.parent
        args = list(call.args)
        positional = [a for a in args if a.keyword is None and a.star == ""]
        drop = next((a for a in args if a.keyword is not None and a.keyword.value == V.DROP_STALE_OUTPUT), None)
        if drop is None and len(positional) >= 3:
            drop = positional[2]
        drop = cast(cst.Arg, drop)  # visit_Call asked preempt_drops_output: the argument is there
        was_last = args[-1] is drop
        args.remove(drop)
        if args and was_last:
            # the new last argument ends as the removed one did: a trailing comma and the
            # line break before `)` stay (one argument per line keeps its shape)
            args[-1] = args[-1].with_changes(comma=drop.comma)
        new_call = call.with_changes(args=args)
        line = cstedits.enclosing_statement(call, parent_of)
        request = ir.request_argument(call)
        if not isinstance(line, cst.SimpleStatementLine) or request is None:
            return [Replacement(call, new_call)], False
        new_line = cast(cst.SimpleStatementLine, line.deep_replace(call, new_call))  # `call` lies inside `line`
        if not cstedits.side_effect_free(request.value):
            bound_line = cstedits.bindable_call_line(call, parent_of)
            if bound_line is None:
                return [], False
            name = cstedits.fresh_name(cstedits.enclosing_scope(call, parent_of))
            resets = cstedits.counter_resets(name)
            return [cstedits.bind_then(line, new_line, request.value, name, resets)], True
        var = ir.code_of(request.value)
        missing = cstedits.missing_resets_after(line, var, parent_of)
        resets = [
            s
            for s in cstedits.counter_resets(var)
            if cast(cst.Attribute, cast(cst.Assign, s.body[0]).targets[0].target).attr.value in missing
        ]
        return [cstedits.insert_after(line, new_line, resets)], False


def _assignment_fix(
    node: cst.BaseSmallStatement, target: cst.Attribute, value: cst.BaseExpression, parent_of: cstedits.GetParent
) -> list[Replacement] | None:
    """Remove the discard write and nothing else: a chained assignment keeps its other
    targets; a value or a target base that acts (`audit_log(r)`, `running.pop()`) stays as
    an expression statement; both acting: no fix (their order would need a name)."""
    if isinstance(node, cst.Assign) and len(node.targets) > 1:
        rest = [t for t in node.targets if t.target is not target]
        return [Replacement(node, node.with_changes(targets=rest))]
    effects = [e for e in (value, target.value) if not cstedits.side_effect_free(e)]
    if isinstance(node, cst.AugAssign) and effects:
        return None  # `x.f += v` also reads the field: leave it to the reader
    if len(effects) > 1:
        return None
    if effects:
        return [Replacement(node, cst.Expr(effects[0]))]
    return cstedits.remove_small_statement(node, parent_of)


def _spelt_drop(node: cst.CSTNode) -> bool:
    """`_preempt_request(..., drop_stale_output=True)` (or `preempt_request`)."""
    return (
        isinstance(node, cst.Call)
        and ir.called_name(node.func) in V.PREEMPT_PRIMITIVES
        and ir.preempt_drops_output(node)
    )


def _drop_message(fact: StaleFrameDropped) -> str:
    flag = f"`{V.DROP_STALE_OUTPUT}=True`"
    what = f"preempts every running request with {flag}" if fact.every_running_request else f"preempts with {flag}"
    return (
        f"{ir.call_text(fact.node)} {what} while `{fact.in_flight_field}` is not 0: the failed step's frame never "
        "arrives, so the first good frame after resume is dropped (zero the counter before the preempt, or "
        "preempt without the flag and reset both counters after it)"
    )
