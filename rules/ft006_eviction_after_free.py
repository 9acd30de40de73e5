"""FT006 eviction-after-free."""

from __future__ import annotations

import libcst as cst

from ftlint.analysis.facts import ReadAfterFree
from ftlint.lint.rule import Invalid, Rule, Valid
from ftlint.syntax import ir


class EvictionAfterFree(Rule):
    """
    ## What it does
    Flags a free, preempt or abort in fault-path code after which, on some path, an
    eviction (`evict_blocks`, `_maybe_evict_cached_block`) or `record_blocks_for_zeroing`
    works on those requests' blocks read from `req_to_blocks` (or `get_blocks`,
    `get_block_ids`, `request.block_ids`) *after* the free, directly or in a helper.
    Block ids collected before the free and evicted after it are fine: `evict_blocks`
    drops the hashes of exactly the ids it is given whenever it runs. The finding is
    reported at the free.

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
        Valid(
            """
            from vllm.v1.request import RequestStatus

            class Sentinel:
                def on_fault(self, exc):
                    scheduler = self.engine.scheduler
                    kv = scheduler.kv_cache_manager
                    dirty = set()
                    for req in scheduler.running:
                        first = (req.num_computed_tokens - req.num_in_flight_tokens) // 16
                        for manager in kv.coordinator.single_type_managers:
                            dirty |= {b.block_id for b in manager.req_to_blocks[req.request_id][first:]}
                    scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
                    kv.evict_blocks(dirty)  # ids read before the free: the hashes still go
            """,
            name="ids-collected-before-the-free-evicted-after",
        ),
    ]
    INVALID = [
        Invalid(
            """
            from vllm.v1.request import RequestStatus

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    running = list(self.engine.scheduler.running)
                    self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
                    self._evict_unconfirmed_tails(running)

                def _evict_unconfirmed_tails(self, requests):
                    kv = self.engine.scheduler.kv_cache_manager
                    for req in requests:
                        first = (req.num_computed_tokens - req.num_in_flight_tokens) // 16
                        for manager in kv.coordinator.single_type_managers:
                            tail = manager.req_to_blocks[req.request_id][first:]
                            kv.evict_blocks({b.block_id for b in tail})
            """,
            expect=((6, 9),),
            name="abort-then-helper-evicts",
        ),
        Invalid(
            """
            from vllm.v1.request import RequestStatus

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    running = list(self.scheduler.running)
                    if self.resume:
                        for req in running:
                            self.scheduler._preempt_request(req, 0.0)
                            req.num_in_flight_tokens = 0
                            req.num_stale_output_tokens = 0
                    else:
                        self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
                    for req in running:
                        self.scheduler.kv_cache_manager.record_blocks_for_zeroing(req.request_id, 0)
            """,
            expect=((8, 17), (12, 13)),
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
from vllm.v1.request import RequestStatus

def recover(scheduler):
    running = list(scheduler.running)
    scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
    kv = scheduler.kv_cache_manager
    for req in running:
        first = (req.num_computed_tokens - req.num_in_flight_tokens) // 16
        kv.evict_blocks({b.block_id for b in kv.get_blocks(req.request_id).blocks[0][first:]})
"""
            },
            expect=(("ft_helpers.py", 5, 5),),
            name="helper-in-other-module",
        ),
        Invalid(
            """
            from vllm.v1.request import RequestStatus

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    self._abort_all()
                    self._evict_tails()

                def _abort_all(self):
                    self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)

                def _evict_tails(self):
                    kv = self.scheduler.kv_cache_manager
                    for req in self.scheduler.running:  # read after the abort: nothing left
                        ids = kv.get_block_ids(req.request_id)
                        kv.evict_blocks(set(ids[0][(req.num_computed_tokens - req.num_in_flight_tokens) // 16:]))
            """,
            expect=((9, 9),),
            name="free-in-same-class-helper-before-eviction",
        ),
        Invalid(
            """
            from vllm.v1.request import RequestStatus

            class Sentinel:
                def on_fault(self, exc):
                    sched = self.engine.scheduler
                    kv = sched.kv_cache_manager
                    for req in list(sched.running):
                        sched.finish_requests([req.request_id], RequestStatus.FINISHED_ABORTED)
                        first = (req.num_computed_tokens - req.num_in_flight_tokens) // 16
                        for m in kv.coordinator.single_type_managers:
                            kv.evict_blocks({b.block_id for b in m.req_to_blocks[req.request_id][first:]})
            """,
            expect=((8, 13),),
            name="per-request-free-then-read-its-blocks",
        ),
    ]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        fn = self.scope(node).function
        if fn is None or not self.walked(node):
            return
        for fact in self.context.fault_paths.interpreter.facts(fn, ReadAfterFree):
            what = "evicts their blocks" if fact.reading == "evict" else "records their blocks for zeroing"
            self.report(
                fact.node,
                f"{ir.call_text(fact.node)} frees requests before {ir.call_text(fact.reader)} {what}: "
                "their blocks are read after the free (`req_to_blocks` was popped), so it finds none and does nothing",
            )
