"""FT008 stale-counters-not-reset."""

from __future__ import annotations

import libcst as cst

from ftlint import cstedits, ir
from ftlint.rule import Invalid, Rule, Valid


class StaleCountersNotReset(Rule):
    """
    ## What it does
    Flags a fault handler that preempts a request for resume (`_preempt_request` /
    `preempt_request` without `drop_stale_output=True`), directly or through a helper,
    and does not then set both `request.num_in_flight_tokens = 0` and
    `request.num_stale_output_tokens = 0` on every path.

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
            """
            class Sentinel:
                def on_fault(self, exc):
                    for req in list(self.scheduler.running):
                        self._evict_tail(req)
                        self.scheduler._preempt_request(req, 0.0, drop_stale_output=True)  # noqa: FT001

                def _evict_tail(self, req):
                    self.kv.evict_blocks(set())
            """,
            name="drop-stale-output-is-ft001",
        ),
    ]
    INVALID = [
        Invalid(
            """
            class Sentinel:
                def on_fault(self, exc):
                    for req in list(self.scheduler.running):
                        self._evict_tail(req)
                        self.scheduler._preempt_request(req, 0.0)  # resume later

                def _evict_tail(self, req):
                    self.kv.evict_blocks(set())
            """,
            expect=((5, 13),),
            fixed="""
            class Sentinel:
                def on_fault(self, exc):
                    for req in list(self.scheduler.running):
                        self._evict_tail(req)
                        self.scheduler._preempt_request(req, 0.0)  # resume later
                        req.num_in_flight_tokens = 0
                        req.num_stale_output_tokens = 0

                def _evict_tail(self, req):
                    self.kv.evict_blocks(set())
            """,
            name="no-reset",
        ),
        Invalid(
            """
            class Sentinel:
                def on_fault(self, exc):
                    self._evict_tails()
                    for req in list(self.scheduler.running):
                        self.scheduler.preempt_request(req, 0.0)
                        req.num_stale_output_tokens = 0

                def _evict_tails(self):
                    self.kv.evict_blocks(set())
            """,
            expect=((5, 13),),
            fixed="""
            class Sentinel:
                def on_fault(self, exc):
                    self._evict_tails()
                    for req in list(self.scheduler.running):
                        self.scheduler.preempt_request(req, 0.0)
                        req.num_in_flight_tokens = 0
                        req.num_stale_output_tokens = 0

                def _evict_tails(self):
                    self.kv.evict_blocks(set())
            """,
            name="one-counter-reset",
        ),
        Invalid(
            """
            class Sentinel:
                def on_fault(self, exc):
                    self._evict_tails()
                    preempted = None
                    while self.scheduler.running:
                        self.scheduler._preempt_request(self.scheduler.running.pop(), 0.0)

                def _evict_tails(self):
                    self.kv.evict_blocks(set())
            """,
            expect=((6, 13),),
            # unsafe fix (--unsafe-fixes): `running.pop()` is evaluated once, under a fresh name
            fixed="""
            class Sentinel:
                def on_fault(self, exc):
                    self._evict_tails()
                    preempted = None
                    while self.scheduler.running:
                        preempted_1 = self.scheduler.running.pop()
                        self.scheduler._preempt_request(preempted_1, 0.0)
                        preempted_1.num_in_flight_tokens = 0
                        preempted_1.num_stale_output_tokens = 0

                def _evict_tails(self):
                    self.kv.evict_blocks(set())
            """,
            name="request-expression-bound-first",
        ),
        Invalid(
            """
            from resume import preempt_for_resume

            class Sentinel:
                def on_fault(self, exc):
                    self._evict_tails()
                    if self.resume:
                        for req in list(self.scheduler.running):
                            preempt_for_resume(self.scheduler, req)
                    else:
                        self.scheduler.finish_requests(None, "aborted")

                def _evict_tails(self):
                    self.kv.evict_blocks(set())
            """,
            files={"resume.py": "def preempt_for_resume(scheduler, request):\n    scheduler._preempt_request(request, 0.0)\n"},
            expect=((8, 17),),
            name="helper-in-other-module-abort-and-resume",
        ),
        Invalid(
            """
            class Sentinel:
                def on_fault(self, exc):
                    self._evict_tails()
                    for req in list(self.scheduler.running):
                        self.scheduler._preempt_request(req, 0.0)
                        if req.num_in_flight_tokens:
                            req.num_in_flight_tokens = 0
                            req.num_stale_output_tokens = 0

                def _evict_tails(self):
                    self.kv.evict_blocks(set())
            """,
            expect=((5, 13),),
            name="reset-only-on-one-path",
        ),
    ]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        analysis = self.path_analysis(node)
        if analysis is None:
            return
        for effect, var in analysis.unreset_preempts:
            where = " (inside the helper)" if effect.kind == "call" else ""
            fix, unsafe = self._fix(effect, var, node)
            self.report(
                effect.node,
                f"{ir.describe(effect)} preempts `{var}` for resume{where} but `{var}.num_in_flight_tokens` and "
                f"`{var}.num_stale_output_tokens` are not both reset to 0 afterwards: the scheduler waits forever "
                "for the failed step's output",
                fix=fix,
                fix_title=f"Reset `{var}.num_in_flight_tokens` and `{var}.num_stale_output_tokens` after the preempt"
                + (" (binds the request to a name first)" if unsafe else ""),
                unsafe_fix=unsafe,
            )

    def _fix(self, effect: ir.Effect, var: str, function: cst.FunctionDef):
        """(replacements, unsafe): the resets after the preempt, in place when the request
        expression evaluates nothing; otherwise (`running.pop()`) an unsafe fix that binds
        it to a fresh name first."""
        line = effect.statement
        if not isinstance(line, cst.SimpleStatementLine):
            return (), False
        parent_of = self.parent
        if not isinstance(parent_of(line), (cst.IndentedBlock, cst.Module)):
            return (), False
        call = effect.node
        request = None
        if isinstance(call, cst.Call):
            request = next((a.value for a in call.args if ir.code_of(a.value) == var), None)
        if request is not None and not cstedits.side_effect_free(request):
            if cstedits.bindable_call_line(call, parent_of) is not line:
                return (), False
            name = cstedits.fresh_name(function)
            return [cstedits.bind_then(line, line, request, name, cstedits.counter_resets(name))], True
        if request is None and "(" in var:
            return (), False  # the request expression is not an argument here: no name to bind
        missing = cstedits.missing_resets_after(line, var, parent_of)
        if not missing:
            return (), False
        resets = [s for s in cstedits.counter_resets(var) if s.body[0].targets[0].target.attr.value in missing]
        return [cstedits.insert_after(line, line, resets)], False
