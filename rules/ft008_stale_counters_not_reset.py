"""FT008 stale-counters-not-reset."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from ftlint.analysis.facts import CountersLeftSet
from ftlint.lint.rule import Invalid, Replacement, Rule, Valid
from ftlint.lint.rule_examples import (
    ABORTED,
    EVICT_TAIL,
    EVICT_TAILS,
    PREEMPT,
    RESETS,
    STATUS_IMPORT,
    each_running,
    handler,
    then,
)
from ftlint.syntax import cstedits, ir

# Shared pieces of the examples below (ftlint.lint.rule_examples builds the rest).
_REQUEST_026 = """
class Request:
    def __init__(self):
        self.num_in_flight_tokens = 0
        self.num_output_placeholders = 0
        self.async_tokens_to_discard = 0
"""
_NO_RESET = """
for req in list(self.scheduler.running):
    self._evict_tail(req)
    self.scheduler._preempt_request(req, 0.0)  # resume later"""
_WHILE_RUNNING = "self._evict_tails()\npreempted = None\nwhile self.scheduler.running:\n    "
_SUBCLASS = """
class RecoveringHandler:
    def on_fault(self, exc):
        self._evict_tails()
        self._resume(self.engine.scheduler)

    def _evict_tails(self):
        self.kv.evict_blocks(set())

    def _resume(self, sched):
        for req in list(sched.running):
            sched._preempt_request(req, 0.0)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0

class FaultHandler(RecoveringHandler):
    def _resume(self, sched):  # the inherited on_fault calls this override
        for req in list(sched.running):
            sched._preempt_request(req, 0.0)
"""


class StaleCountersNotReset(Rule):
    """
    ## What it does
    Flags a fault handler that preempts a request for resume (`_preempt_request` /
    `preempt_request` without `drop_stale_output=True`, directly, through an alias, a
    `functools.partial` or a helper) and does not then set both counters of the
    request it preempted to 0 on every path: `num_in_flight_tokens` and
    `num_stale_output_tokens` (vLLM >= 0.27), or `num_in_flight_tokens` and
    `num_output_placeholders` (vLLM 0.26 and forks on it; a `Request` without
    `num_in_flight_tokens`, as in vLLM 0.25, has no counter to reset: no finding).
    Resets count only on the
    preempted request object (assignments, `setattr(req, "num_in_flight_tokens", 0)`,
    a helper that resets its parameter), not on another variable or a request of
    another queue. Zeroing `num_in_flight_tokens` before the preempt is enough on the
    current API (the preempt copies it into `num_stale_output_tokens`). The API
    generation comes from `[tool.ftlint] vllm-api`, else a `Request` class the project
    defines, else the counter fields the handler and its helpers name, else the
    installed vLLM. On a path where `num_in_flight_tokens` is tested to be 0 after the
    preempt, the preempt copied that 0: nothing is left to reset there. A handler class that inherits the handler method is walked as
    itself: `self.method()` is its most-derived override.

    ## Why is this bad?
    `_preempt_request` copies `num_in_flight_tokens` into `num_stale_output_tokens`
    and does not reset `num_in_flight_tokens`. The scheduler skips a waiting request
    until its stale output drains, but after a fault the failed step's output never
    arrives: the request waits forever (a hang).

    ## Example
    ```python
    def on_fault(self, exc):
        for request in list(self.scheduler.running):
            self._evict_unconfirmed_tail(request)
            self.scheduler._preempt_request(request, now)
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
    The fix inserts the missing resets right after the preempt's statement, and only
    when that statement is a line in an indented block or the module (not a one-line
    `try:` body). It is safe when the request argument is a name or an
    attribute chain (writing it again evaluates nothing). When the request is an
    expression that acts (`running.pop()`) and the preempt call is the whole statement,
    the fix first binds it to a fresh name: that fix is unsafe (the call's callee is
    then looked up after its argument) and is applied only with `--unsafe-fixes`.
    Otherwise no fix is offered.
    """

    CODE = "FT008"
    NAME = "stale-counters-not-reset"
    MESSAGE = "Request preempted for resume keeps its in-flight/stale-output counters: the scheduler waits forever for the failed step's output"
    FIXABLE = True

    VALID = [
        Valid(
            """
            class Sentinel:
                def on_fault(self, exc):
                    for req in list(self.scheduler.running):
                        self._evict_tail(req)
                        self._preempt_for_resume(req)

                def _evict_tail(self, req):
                    self.kv.evict_blocks(set())

                def _preempt_for_resume(self, request):
                    self.scheduler._preempt_request(request, 0.0)
                    self._clear_counters(request)

                def _clear_counters(self, r):
                    r.num_in_flight_tokens = 0
                    r.num_stale_output_tokens = 0
            """,
            name="reset-through-helpers",
        ),
        Valid(
            handler(
                """
                for req in list(self.scheduler.running):
                    self._evict_tail(req)
                    self.scheduler._preempt_request(req, 0.0, drop_stale_output=True)  # noqa: FT001
                """,
                EVICT_TAIL,
            ),
            name="drop-stale-output-is-ft001",
        ),
        Valid(
            handler(
                """
                sched = self.engine.scheduler
                self._evict_tails()
                preempt = functools.partial(sched._preempt_request, timestamp=0.0)
                for req in list(sched.running):
                    preempt(req)
                    for field in COUNTERS:
                        setattr(req, field, 0)
                """,
                EVICT_TAILS,
                before='import functools\n\nCOUNTERS = ("num_in_flight_tokens", "num_stale_output_tokens")',
            ),
            name="partial-and-setattr-over-a-constant-tuple",
        ),
        Valid(
            handler(
                """
                sched = self.engine.scheduler
                self._evict_tails()
                p = sched._preempt_request
                while sched.running:
                    req = sched.running.pop()
                    req.num_in_flight_tokens = 0  # the preempt copies it into num_stale_output_tokens
                    p(req, 0.0)
                """,
                EVICT_TAILS,
            ),
            name="in-flight-zeroed-before-the-preempt-through-an-alias",
        ),
        Valid(
            each_running(
                PREEMPT, "req.num_in_flight_tokens = 0", "req.num_output_placeholders = 0", before=_REQUEST_026
            ),
            name="older-api-resets-its-own-counters",
        ),
        Valid(
            each_running(
                PREEMPT,
                "if req.num_in_flight_tokens:  # else the preempt copied a 0: nothing is stale",
                *("    " + line for line in RESETS),
            ),
            name="reset-skipped-only-when-nothing-was-in-flight",
        ),
    ]
    INVALID = [
        Invalid(
            handler(_NO_RESET, EVICT_TAIL),
            expect=((5, 13),),
            fixed=handler(_NO_RESET + "".join("\n    " + line for line in RESETS), EVICT_TAIL),
            name="no-reset",
        ),
        Invalid(
            each_running(PREEMPT, RESETS[1]),
            expect=((5, 13),),
            fixed=each_running(PREEMPT, *RESETS),
            name="one-counter-reset",
        ),
        Invalid(
            handler(_WHILE_RUNNING + "self.scheduler._preempt_request(self.scheduler.running.pop(), 0.0)", EVICT_TAILS),
            expect=((6, 13),),
            # unsafe fix (--unsafe-fixes): `running.pop()` is evaluated once, under a fresh name
            fixed=handler(
                _WHILE_RUNNING
                + "preempted_1 = self.scheduler.running.pop()\n"
                + "    self.scheduler._preempt_request(preempted_1, 0.0)\n"
                + "    preempted_1.num_in_flight_tokens = 0\n"
                + "    preempted_1.num_stale_output_tokens = 0",
                EVICT_TAILS,
            ),
            name="request-expression-bound-first",
        ),
        Invalid(
            handler(
                f"""
                self._evict_tails()
                if self.resume:
                    for req in list(self.scheduler.running):
                        preempt_for_resume(self.scheduler, req)
                else:
                    self.scheduler.finish_requests(None, {ABORTED})
                """,
                EVICT_TAILS,
                before=f"from resume import preempt_for_resume\n{STATUS_IMPORT}",
            ),
            files={
                "resume.py": "def preempt_for_resume(scheduler, request):\n    scheduler._preempt_request(request, 0.0)\n"
            },
            expect=((9, 17),),
            name="helper-in-other-module-abort-and-resume",
        ),
        Invalid(
            each_running(
                PREEMPT,
                "if req.num_output_tokens:  # a request still in prefill keeps its counters",
                *("    " + line for line in RESETS),
            ),
            expect=((5, 13),),
            name="reset-only-on-one-path",
        ),
        Invalid(
            handler(
                """
                sched = self.engine.scheduler
                req = sched.running[0]  # for the log line
                self._evict_tails()
                for r in list(sched.running):
                    sched._preempt_request(r, 0.0)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
                """,
                EVICT_TAILS,
            ),
            expect=((7, 13),),
            name="reset-on-another-request-with-a-similar-name",
        ),
        Invalid(
            each_running(PREEMPT, RESETS[0], before=_REQUEST_026),
            expect=((11, 13),),
            fixed=each_running(PREEMPT, "req.num_output_placeholders = 0", RESETS[0], before=_REQUEST_026),
            name="older-api-placeholders-left",
        ),
        Invalid(
            each_running(
                PREEMPT,
                RESETS[0],
                "req.num_output_placeholders = 0  # a 0.26 fork's counters, but this code runs on 0.27+",
            ),
            config='vllm-api = "0.27"',
            expect=((5, 13),),
            name="vllm-api-setting-overrides-the-fields-the-code-names",
        ),
        Invalid(
            _SUBCLASS,
            expect=((18, 13),),
            fixed=then(_SUBCLASS, *RESETS, indent=12),
            name="subclass-overrides-the-resume-step",
        ),
        Invalid(
            handler(
                "self._evict_tails()\nself.scheduler._preempt_request(self.scheduler.running.pop(), 0.0)", EVICT_TAILS
            ),
            expect=((4, 9),),
            name="no-fix-where-the-request-is-not-a-plain-name",
        ),
        Invalid(
            """
            class Sentinel:
                def on_fault(self, exc):
                    s = self.scheduler
                    for r in list(s.running):
                        self._evict_tail(r)
                        try: s._preempt_request(r, 0)
                        except Exception: pass

                def _evict_tail(self, r):
                    self.scheduler.kv_cache_manager.evict_blocks(set())
            """,
            expect=((6, 18),),
            name="one-line-try-body",
        ),
        Invalid(
            """
            class Sentinel:
                def on_fault(self, exc):
                    s = self.scheduler
                    for r in list(s.running):
                        self._evict_tail(r)
                        s._preempt_request(request=r, timestamp=0)

                def _evict_tail(self, r):
                    self.scheduler.kv_cache_manager.evict_blocks(set())
            """,
            expect=((6, 13),),
            fixed="""
            class Sentinel:
                def on_fault(self, exc):
                    s = self.scheduler
                    for r in list(s.running):
                        self._evict_tail(r)
                        s._preempt_request(request=r, timestamp=0)
                        r.num_in_flight_tokens = 0
                        r.num_stale_output_tokens = 0

                def _evict_tail(self, r):
                    self.scheduler.kv_cache_manager.evict_blocks(set())
            """,
            name="request-passed-by-keyword",
        ),
    ]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        fn = self.scope(node).function
        if fn is None or not self.walked(node):
            return
        interpreter = self.context.fault_paths.interpreter
        for fact in interpreter.facts(fn, CountersLeftSet):
            counters = fact.fields
            fix, unsafe, var = self._fix(fact.node, fact.request, counters, node)
            title = ""
            if fix:
                title = f"Reset `{var}.{counters[0]}` and `{var}.{counters[1]}` after the preempt" + (
                    " (binds the request to a name first)" if unsafe else ""
                )
            name, inner = fact.request_text, " (inside the helper)" if fact.in_helper else ""
            message = (
                f"{ir.call_text(fact.node)} preempts `{name}` for resume{inner} but `{name}.{counters[0]}` and "
                f"`{name}.{counters[1]}` are not both reset to 0 afterwards: the scheduler waits forever for the "
                "failed step's output"
            )
            self.report(fact.node, message, fix=fix, fix_title=title, unsafe_fix=unsafe)

    def _fix(
        self,
        call: cst.CSTNode,
        request: cst.BaseExpression | None,
        counters: tuple[str, ...],
        function: cst.CSTNode | None,
    ) -> tuple[Sequence[Replacement], bool, str]:
        """(replacements, unsafe, the name reset): the missing resets after the preempt's
        statement, in place when writing the request expression again evaluates nothing
        (a name, an attribute chain); otherwise (`running.pop()`) an unsafe fix that binds
        it to a fresh name first, since the call would run again."""
        line = cstedits.enclosing_statement(call, self.parent)
        if request is None or not isinstance(line, cst.SimpleStatementLine):
            return (), False, ""
        if not isinstance(self.parent(line), (cst.IndentedBlock, cst.Module)):
            return (), False, ""
        if not cstedits.side_effect_free(request):
            if not isinstance(call, cst.Call) or cstedits.bindable_call_line(call, self.parent) is not line:
                return (), False, ""
            name = cstedits.fresh_name(function)
            return [cstedits.bind_then(line, line, request, name, cstedits.counter_resets(name, counters))], True, name
        var = ir.code_of(request)
        missing = cstedits.missing_resets_after(line, var, self.parent, counters)
        if not missing:
            return (), False, ""
        return [cstedits.insert_after(line, line, cstedits.counter_resets(var, missing))], False, var
