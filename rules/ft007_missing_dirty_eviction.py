"""FT007 missing-dirty-eviction."""

from __future__ import annotations

import libcst as cst

from ftlint.analysis.facts import TailLeftCached
from ftlint.lint.rule import Invalid, Rule, Valid
from ftlint.lint.rule_examples import EVICT_TAILS, SCHEDULER_EVICT_TAIL, aborting, with_methods
from ftlint.syntax import ir


class MissingDirtyEviction(Rule):
    """
    ## What it does
    Follows every path through a fault handler and the project helpers it calls
    (statements in order, `if`/`elif`/`else`, `match`, loops, `try`/`finally`, early
    returns) and flags a free, preempt or abort of requests (`finish_requests`,
    `_preempt_request`, `preempt_request`, `kv_cache_manager.free`, `_free_request`,
    `_free_request_blocks`, also through an alias, a `functools.partial` or a bound
    method kept in a dict), or a request rewound in place for resume
    (`req.num_computed_tokens = ...` or `-=`) or put back in the waiting queue by hand
    (`scheduler.waiting.prepend_request(req)`, `add_request`, `append`): both keep its
    blocks and their hashes. It reports when, at the end of that path, no eviction covered those
    requests' unconfirmed tail. An eviction covers it when its block ids start at
    `(num_computed_tokens - num_in_flight_tokens) // block_size` (or earlier: that is
    FT004), in every KV-cache group (`single_type_managers`, not only `[0]`), for
    every running request (a loop may skip requests without in-flight tokens and null
    blocks; `if ids:` around the eviction is fine). `record_blocks_for_zeroing` is not
    an eviction: the zeroed blocks keep their hashes. Ids read before the free and
    evicted after it still count; ids read after it do not (FT006). A call the
    analysis cannot follow is taken as having no effect, so it is never the reason for
    a finding; `super().on_fault()` into vLLM's own handler is read from vLLM's source
    (`vllm-source`, else the installed vLLM) or, with neither (pre-commit's
    environment), from the summary of it ftlint ships: the same finding either way.

    ## Why is this bad?
    vLLM caches the blocks of a step at schedule time, before the forward pass. When
    the step fails, those blocks hold garbage, yet their hashes stay in the prefix
    cache. Freeing or preempting keeps the hashes, so the resumed request, or any new
    request with the same prefix, gets a prefix-cache hit on KV that was never
    computed. vLLM 0.34.0's own `EngineCoreSentinel.on_fault` aborts without evicting.

    ## Example
    ```python
    def on_fault(self, exc):
        if self.resume:
            self._evict_unconfirmed_tails()
            self._preempt_all()
        else:
            self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
    ```

    Use instead:
    ```python
    def on_fault(self, exc):
        self._evict_unconfirmed_tails()
        if self.resume:
            self._preempt_all()
        else:
            self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
    ```
    """

    CODE = "FT007"
    NAME = "missing-dirty-eviction"
    MESSAGE = (
        "Fault handler frees requests without first evicting their unconfirmed tail: dirty KV stays in the prefix cache"
    )

    VALID = [
        Valid(
            """
            from vllm.v1.request import RequestStatus

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    scheduler = self.engine.scheduler
                    self._evict_unconfirmed_tails(scheduler)
                    if self.resume:
                        for req in list(scheduler.running):
                            scheduler._preempt_request(req, 0.0)
                            req.num_in_flight_tokens = 0
                            req.num_stale_output_tokens = 0
                    else:
                        scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)

                def _evict_unconfirmed_tails(self, scheduler):
                    for req in scheduler.running:
                        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
                        if confirmed == req.num_computed_tokens:
                            continue
                        scheduler.kv_cache_manager.evict_blocks(self._tail(req, confirmed))

                def _tail(self, req, confirmed):
                    kv = self.engine.scheduler.kv_cache_manager
                    return {
                        b.block_id
                        for m in kv.coordinator.single_type_managers
                        for b in m.req_to_blocks[req.request_id][confirmed // m.block_size:]
                        if not b.is_null
                    }
            """,
            name="evict-before-both-branches",
        ),
        Valid(
            with_methods(
                """
            class EngineCoreSentinel:
                def on_fault(self, exc):
                    for req in list(self.scheduler.running):
                        self._evict_tail(req)
                        self.scheduler._preempt_request(req, 0.0)
                        req.num_in_flight_tokens = 0
                        req.num_stale_output_tokens = 0
            """,
                SCHEDULER_EVICT_TAIL,
            ),
            name="per-request-loop",
        ),
        Valid(
            """
            from ft_helpers import evict_dirty_tails
            from vllm.v1.request import RequestStatus

            class Sentinel:
                def on_fault(self, exc):
                    try:
                        evict_dirty_tails(self.scheduler)
                    finally:
                        pass
                    self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            """,
            files={"ft_helpers.py": "def evict_dirty_tails(s):\n    s.kv_cache_manager.evict_blocks(set())\n"},
            lint=("example.py",),
            name="helper-in-file-not-passed",
        ),
        Valid(
            """
            from vllm.v1.request import RequestStatus

            class Scheduler:
                def _update_requests_with_invalid_blocks(self, requests):
                    for req in requests:
                        self.finish_requests(req.request_id, RequestStatus.FINISHED_ABORTED)
            """,
            name="not-a-handler",
        ),
        Valid(
            with_methods(
                """
            from vllm.v1.request import RequestStatus

            class Sentinel:
                def on_fault(self, exc):
                    running = list(self.scheduler.running)
                    for req in running:
                        if req.num_in_flight_tokens == 0:
                            continue  # nothing unconfirmed: no dirty tail
                        self._evict_tail(req)
                    self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            """,
                SCHEDULER_EVICT_TAIL,
            ),
            name="eviction-pass-skips-requests-without-tail",
        ),
        Valid(
            aborting(
                """
                ids = {
                    b.block_id
                    for r in sched.running
                    for m in kv.coordinator.single_type_managers
                    for b in m.req_to_blocks[r.request_id][(r.num_computed_tokens - r.num_in_flight_tokens) // m.block_size:]
                    if not b.is_null
                }
                if ids:  # nothing unconfirmed anywhere: nothing to evict
                    kv.evict_blocks(ids)
                """,
            ),
            name="comprehension-over-groups-guarded-by-if-ids",
        ),
        Valid(
            """
            from vllm.v1.request import RequestStatus

            class Sentinel:
                def on_fault(self, exc):
                    sched = self.engine.scheduler
                    steps = {"evict": self._evict_tails, "abort": sched.finish_requests}
                    steps["evict"](sched)
                    steps["abort"](None, RequestStatus.FINISHED_ABORTED)

                def _evict_tails(self, sched):
                    pool = sched.kv_cache_manager.block_pool
                    for req in sched.running:
                        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
                        for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
                            for blk in mgr.req_to_blocks[req.request_id][confirmed // mgr.block_size:]:
                                pool._maybe_evict_cached_block(blk)
            """,
            name="bound-methods-in-a-dict",
        ),
        Valid(
            """
            class Sentinel:
                def on_fault(self, exc):
                    sched = self.engine.scheduler
                    kv = sched.kv_cache_manager
                    for req in sched.running:
                        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
                        for m in kv.coordinator.single_type_managers:
                            kv.evict_blocks({b.block_id for b in m.req_to_blocks[req.request_id][confirmed // m.block_size:]})
                        req.num_computed_tokens = confirmed  # rewound in place, after evicting its tail
                        req.num_in_flight_tokens = 0
            """,
            name="rewind-in-place-after-evicting-the-tail",
        ),
        Valid(
            with_methods(
                """
            import logging

            from vllm.v1.request import RequestStatus

            logger = logging.getLogger(__name__)

            class Sentinel:
                def on_fault(self, exc):
                    try:
                        self._evict_tails()
                    except Exception:
                        logger.exception("evicting the dirty tails failed; aborting anyway")
                    self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            """,
                EVICT_TAILS,
            ),
            name="eviction-that-fails-is-logged-then-abort",
        ),
    ]
    INVALID = [
        Invalid(
            """
            from vllm.v1.request import RequestStatus

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    engine = self.engine
                    aborted = engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
                    engine._send_abort_outputs(aborted)
            """,
            expect=((6, 19),),
            name="upstream-abort",
        ),
        Invalid(
            """
            from vllm.v1.request import RequestStatus

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    if self.resume:
                        self._evict_tails()
                        self._preempt_all()
                    else:
                        self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)

                def _evict_tails(self):
                    self.scheduler.kv_cache_manager.evict_blocks(set())

                def _preempt_all(self):
                    for r in self.scheduler.running:
                        self.scheduler._preempt_request(r, 0.0)
                        r.num_in_flight_tokens = 0
                        r.num_stale_output_tokens = 0
            """,
            expect=((9, 13),),
            name="eviction-only-in-resume-branch",
        ),
        Invalid(
            """
            from recovery import abort_all

            def on_fault(engine, exc):
                abort_all(engine.scheduler)
            """,
            files={
                "recovery.py": """
from vllm.v1.request import RequestStatus


def abort_all(s):
    s.finish_requests(None, RequestStatus.FINISHED_ABORTED)
"""
            },
            lint=("example.py",),
            expect=((4, 5),),
            name="free-in-helper-in-file-not-passed",
        ),
        Invalid(
            """
            class Sentinel:
                def on_fault(self, exc):
                    for req in list(self.scheduler.running):
                        self.scheduler._preempt_request(req, 0.0)
                        req.num_in_flight_tokens = 0
                        req.num_stale_output_tokens = 0
                        self._evict_tail(req)

                def _evict_tail(self, req):
                    kv = self.scheduler.kv_cache_manager
                    first = (req.num_computed_tokens - req.num_in_flight_tokens) // 16
                    for manager in kv.coordinator.single_type_managers:
                        kv.evict_blocks({b.block_id for b in manager.req_to_blocks[req.request_id][first:]})
            """,
            expect=((4, 13),),
            name="eviction-after-preempt",
        ),
        Invalid(
            with_methods(
                """
            from vllm.v1.request import RequestStatus

            class Sentinel:
                def on_fault(self, exc):
                    try:
                        self._drain_batch_queue()
                        self._evict_tails()
                    except Exception:
                        pass
                    self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            """,
                EVICT_TAILS,
            ),
            expect=((10, 9),),
            name="exception-before-the-eviction-skips-it",
        ),
        Invalid(
            """
            from vllm.v1.request import RequestStatus

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    self._recover(exc)

                def _recover(self, exc):
                    scheduler = self.engine.scheduler
                    aborted = scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
                    self.engine._send_abort_outputs(aborted)
            """,
            expect=((9, 19),),
            name="free-in-helper-in-same-class-reported-at-the-free",
        ),
        Invalid(
            aborting(
                """
                for req in sched.running:
                    first = req.num_computed_tokens // 16
                    for m in kv.coordinator.single_type_managers:
                        kv.evict_blocks({b.block_id for b in m.req_to_blocks[req.request_id][first:]})
                """,
            ),
            expect=((11, 9),),
            name="tail-from-num-computed-tokens-misses-it",
        ),
        Invalid(
            aborting(
                """
                for req in sched.running:
                    first = (req.num_computed_tokens - req.num_in_flight_tokens) // 16
                    blocks = kv.coordinator.single_type_managers[0].req_to_blocks[req.request_id]
                    kv.evict_blocks({b.block_id for b in blocks[first:]})
                """,
            ),
            expect=((11, 9),),
            name="first-kv-cache-group-only",
        ),
        Invalid(
            aborting(
                """
                for req in sched.running:
                    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
                    sched.kv_cache_manager.record_blocks_for_zeroing(req.request_id, confirmed - confirmed % 16)
                """,
                kv=False,
            ),
            expect=((9, 9),),
            name="zeroing-is-not-eviction",
        ),
        Invalid(
            aborting(
                """
                ids = set()
                for req in sched.running:
                    if req.num_output_tokens == 0:
                        continue  # "still in prefill": yet its prompt blocks are the dirty ones
                    first = (req.num_computed_tokens - req.num_in_flight_tokens) // 16
                    for m in kv.coordinator.single_type_managers:
                        ids |= {b.block_id for b in m.req_to_blocks[req.request_id][first:]}
                kv.evict_blocks(ids)
                """,
            ),
            expect=((15, 9),),
            name="skips-requests-that-have-a-dirty-tail",
        ),
        Invalid(
            aborting(
                """
                for req in sched.running:
                    first = (req.num_computed_tokens - req.num_in_flight_tokens) // 16
                    ids = set()
                    for i, block in enumerate(kv.coordinator.single_type_managers[0].req_to_blocks[req.request_id]):
                        if i < first:
                            continue  # the clean prefix: yet the set is not empty after the loop
                        ids.add(block.block_id)
                    kv.evict_blocks(ids)
                """,
            ),
            expect=((15, 9, "only the first KV-cache group"),),
            name="first-kv-cache-group-only-gathered-past-an-index-filter",
        ),
        Invalid(
            aborting(
                """
                for req in sched.running:
                    first = (req.num_computed_tokens - req.num_in_flight_tokens) // 16
                    for m in kv.coordinator.single_type_managers:
                        kv.evict_blocks({b.block_id for b in m.req_to_blocks[req.request_id][:first]})
                """,
            ),
            expect=((11, 9, "ends where the unconfirmed tail begins"),),
            name="slice-up-to-the-boundary-evicts-the-prefix-and-keeps-the-tail",
        ),
        Invalid(
            """
            from vllm.v1.request import RequestStatus

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    (self._preempt_all if self.resume else self._abort_all)()

                def _abort_all(self):
                    self.scheduler.kv_cache_manager.evict_blocks(set())
                    self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)

                def _preempt_all(self):
                    for r in self.scheduler.running:
                        self.scheduler._preempt_request(r, 0.0)
                        r.num_in_flight_tokens = 0
                        r.num_stale_output_tokens = 0
            """,
            expect=((13, 13),),
            name="conditional-callee-resume-branch-without-eviction",
        ),
        Invalid(
            """
            class Sentinel:
                def on_fault(self, exc):
                    for req in self.engine.scheduler.running:
                        # resume in place: recompute the lost step, free nothing
                        req.num_computed_tokens -= req.num_in_flight_tokens
                        req.num_in_flight_tokens = 0
            """,
            expect=((5, 13, "rewinds the request in place"),),
            name="rewind-in-place-without-eviction",
        ),
        Invalid(
            """
            from vllm.v1.request import RequestStatus

            class Sentinel:
                def on_fault(self, exc):
                    sched = self.engine.scheduler
                    while sched.running:
                        req = sched.running.pop()
                        req.status = RequestStatus.PREEMPTED
                        req.num_in_flight_tokens = 0
                        sched.waiting.prepend_request(req)  # requeued by hand: its blocks stay allocated and hashed
            """,
            expect=((10, 13, "puts a request back to wait"),),
            name="requeue-by-hand-without-eviction",
        ),
    ]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        fn = self.scope(node).function
        if fn is None or not self.walked(node):
            return
        for fact in self.context.fault_paths.interpreter.facts(fn, TailLeftCached):
            inner = (" (inside the helper, in another file)" if fact.other_file else " (inside the helper)") * (
                fact.through_helper
            )
            reached = f", reached from `{fact.entry}`," if fact.entry is not None else ""
            self.report(
                fact.node,
                f"{_what(fact)}{inner}{reached} on a path {_GAPS[fact.gap]}: dirty KV stays in the prefix cache",
            )


def _what(fact: TailLeftCached) -> str:
    """What the reported node does to the requests."""
    kept = " (it keeps its blocks and their hashes)"
    if fact.kind == "rewind" and not fact.through_helper:
        return f"setting `{ir.code_of(fact.node)}` rewinds the request in place{kept}"
    if fact.kind == "rewind":
        return f"{ir.call_text(fact.node)} rewinds a request in place{kept}"
    if fact.kind == "requeue":
        return f"{ir.call_text(fact.node)} puts a request back to wait without freeing it{kept}"
    return f"{ir.call_text(fact.node)} frees requests"


#: how the path's eviction fell short, as the message says it
_GAPS = {
    "none": "with no eviction of their unconfirmed tail",
    "late": "whose eviction starts after the block the unconfirmed tail begins in (from `num_computed_tokens // "
    "block_size`, or the boundary divided rounding up, not `(num_computed_tokens - num_in_flight_tokens) // "
    "block_size`)",
    "head": "whose eviction ends where the unconfirmed tail begins (`blocks[:boundary]`): it evicts the confirmed "
    "blocks and keeps the tail",
    "first-group": "whose eviction covers only the first KV-cache group (iterate `single_type_managers`)",
    "dropped": "whose eviction filters its ids with `block_id < len(blocks)`: a block id indexes the pool, not the "
    "request's block list, so the filter drops the tail's ids",
}
