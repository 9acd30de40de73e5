"""FT005 prefix-cache-reset."""

from __future__ import annotations

import libcst as cst

from ftlint.analysis.facts import PrefixCacheResetCalled
from ftlint.core import vocabulary as V
from ftlint.lint.rule import Invalid, Rule, Valid
from ftlint.syntax import ir


class PrefixCacheReset(Rule):
    """
    ## What it does
    Flags a call of `reset_prefix_cache(...)` in fault-path code, also through an alias,
    `getattr`, `functools.partial`, `operator.methodcaller` or a table of bound methods with
    a literal key (a call the walk cannot resolve is not reported).

    ## Why is this bad?
    `Scheduler.reset_prefix_cache` preempts every running request with
    `drop_stale_output=True` (the discard bookkeeping FT001 reports) and then empties
    the *whole* prefix cache. After a fault only the unconfirmed tail of each faulted
    request is dirty: clearing everything throws away every clean block of every
    request, and the first good output frame after resume is dropped. It is the right
    call for pause or release-memory, not for a fault.

    ## Example
    ```python
    def on_fault(self, exc):
        self.engine.scheduler.reset_prefix_cache(reset_running_requests=True)
    ```

    Use instead:
    ```python
    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        for request in list(scheduler.running):
            self._evict_unconfirmed_tail(request)
            scheduler._preempt_request(request, time.monotonic())
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
    ```
    """

    CODE = "FT005"
    NAME = "prefix-cache-reset"
    MESSAGE = "Fault path calls `reset_prefix_cache()`: it drops the next output frame and empties the whole prefix cache instead of the dirty tail"

    VALID = [
        Valid(
            """
            class EngineCore:
                def pause(self):
                    self.scheduler.reset_prefix_cache(reset_running_requests=True)

                def on_fault(self, exc):
                    self.scheduler.finish_requests(None, "aborted")  # noqa: FT007
            """,
            name="pause-is-not-a-fault-path",
        ),
    ]
    INVALID = [
        Invalid(
            """
            class Sentinel:
                def on_fault(self, exc):
                    self.engine.scheduler.reset_prefix_cache(reset_running_requests=True)
            """,
            expect=((3, 9),),
            message="Fault path calls `reset_prefix_cache()`",
            name="direct",
        ),
        Invalid(
            """
            class Sentinel:
                def on_fault(self, exc):
                    self._recover()

                def _recover(self):
                    if self.engine.scheduler.reset_prefix_cache():
                        return
            """,
            expect=((6, 12),),
            name="helper-in-same-class",
        ),
        Invalid(
            """
            from recovery import CacheTools

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    if self.resume_on_fault:
                        CacheTools.clear(self.engine.scheduler)
                    else:
                        self.engine.scheduler.finish_requests(None, "aborted")  # noqa: FT007
            """,
            files={
                "recovery.py": """
class CacheTools:
    @staticmethod
    def clear(scheduler):
        scheduler.reset_prefix_cache(reset_running_requests=True)
"""
            },
            expect=(("recovery.py", 4, 9),),
            name="abort-and-resume-helper-in-another-class-and-module",
        ),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        if ir.called_name(node.func) == V.RESET_PREFIX_CACHE and self.in_fault_path(node):
            self.report(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        # Calls the walk resolves to reset_prefix_cache that are not spelled with its name
        # (visit_Call): `r = sched.reset_prefix_cache; r()`, a partial, a methodcaller, ...
        fn = self.scope(node).function
        if fn is None or not self.walked(node):
            return
        for fact in self.context.fault_paths.interpreter.facts(fn, PrefixCacheResetCalled):
            if isinstance(fact.node, cst.Call) and ir.called_name(fact.node.func) != V.RESET_PREFIX_CACHE:
                self.report(fact.node)
