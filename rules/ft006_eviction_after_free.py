"""FT006 eviction-after-free."""

from __future__ import annotations

import libcst as cst

from ftlint import ir
from ftlint.rule import Invalid, Rule, Valid


class EvictionAfterFree(Rule):
    """
    ## What it does
    Flags a free, preempt or abort in fault-path code after which, on some path, an
    eviction runs (directly or through a helper): the eviction comes too late. The
    finding is reported at the free.

    ## Why is this bad?
    Freeing a request pops its entry from `req_to_blocks`. An eviction helper that
    looks up the request's blocks afterwards finds nothing, and
    `record_blocks_for_zeroing` silently records nothing once the request was freed.
    The dirty blocks keep their prefix-cache hashes although the handler "evicts".

    ## Example
    ```python
    def on_fault(self, exc):
        aborted = self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
        self._evict_unconfirmed_tails(aborted)
    ```

    Use instead:
    ```python
    def on_fault(self, exc):
        self._evict_unconfirmed_tails(self.engine.scheduler.running)
        aborted = self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
    ```
    """

    CODE = "FT006"
    NAME = "eviction-after-free"
    MESSAGE = "Requests are freed before their blocks are evicted: the later eviction finds no blocks and does nothing"

    VALID = [
        Valid(
            """
            class Sentinel:
                def on_fault(self, exc):
                    for req in list(self.scheduler.running):
                        self._evict_tail(req)
                        self.scheduler._preempt_request(req, 0.0)
                        req.num_in_flight_tokens = 0
                        req.num_stale_output_tokens = 0

                def _evict_tail(self, req):
                    self.scheduler.kv_cache_manager.record_blocks_for_zeroing(req.request_id, 16)
            """,
            name="evict-then-preempt-per-request",
        ),
        Valid(
            """
            class Scheduler:
                def _handle_invalid_blocks(self, req):
                    self.kv_cache_manager.free(req)
                    self.kv_cache_manager.evict_blocks({1, 2})
            """,
            name="not-a-fault-path",
        ),
    ]
    INVALID = [
        Invalid(
            """
            class EngineCoreSentinel:
                def on_fault(self, exc):
                    aborted = self.engine.scheduler.finish_requests(None, "aborted")
                    self._evict_unconfirmed_tails(aborted)

                def _evict_unconfirmed_tails(self, reqs):
                    self.engine.scheduler.kv_cache_manager.evict_blocks(set())
            """,
            expect=((3, 19),),
            name="abort-then-helper-evicts",
        ),
        Invalid(
            """
            class EngineCoreSentinel:
                def on_fault(self, exc):
                    running = list(self.scheduler.running)
                    if self.resume:
                        for req in running:
                            self.scheduler._preempt_request(req, 0.0)
                            req.num_in_flight_tokens = 0
                            req.num_stale_output_tokens = 0
                    else:
                        self.scheduler.finish_requests(None, "aborted")
                    for req in running:
                        self.scheduler.kv_cache_manager.record_blocks_for_zeroing(req.request_id, 0)
            """,
            expect=((6, 17), (10, 13)),
            name="abort-and-resume-branches-both-before-eviction",
        ),
        Invalid(
            """
            from ft_helpers import recover

            class Sentinel:
                def on_fault(self, exc):
                    recover(self.scheduler)
            """,
            files={
                "ft_helpers.py": """
def recover(scheduler):
    scheduler.finish_requests(None, "aborted")
    scheduler.kv_cache_manager.evict_blocks(set())
"""
            },
            expect=(("ft_helpers.py", 2, 5),),
            name="helper-in-other-module",
        ),
        Invalid(
            """
            class EngineCoreSentinel:
                def on_fault(self, exc):
                    self._abort_all()
                    self._evict_tails()

                def _abort_all(self):
                    self.scheduler.finish_requests(None, "aborted")

                def _evict_tails(self):
                    self.scheduler.kv_cache_manager.evict_blocks(set())
            """,
            expect=((7, 9),),
            name="free-in-same-class-helper-before-eviction",
        ),
    ]

    def __init__(self, context) -> None:
        super().__init__(context)
        self._reported: set[int] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        analysis = self.path_analysis(node)
        if analysis is None:
            return
        function = self.scope(node).function
        for effect, eviction in analysis.frees_before_eviction.items():
            free = self.context.paths.free_origin(function, effect, unguarded=False)
            if id(free) in self._reported:
                continue
            self._reported.add(id(free))
            self.report(
                free.node,
                f"{ir.describe(free)} frees requests before {ir.describe(eviction)} evicts their blocks: "
                "the eviction then finds no blocks (`req_to_blocks` was popped) and does nothing",
            )
