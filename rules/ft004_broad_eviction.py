"""FT004 broad-eviction."""

from __future__ import annotations

import libcst as cst

from ftlint.analysis.facts import BroadEviction as BroadEvictionFact
from ftlint.lint.rule import Invalid, Rule, Valid
from ftlint.syntax import ir


class BroadEviction(Rule):
    """
    ## What it does
    Flags fault-path eviction that takes *every* block of a request: an
    `evict_blocks(...)` or `_maybe_evict_cached_block(...)` call (or a call of a project
    helper that evicts what it is given) whose argument comes from a whole block list
    (`req_to_blocks[...]`, `req_to_blocks.get(...)`, `get_blocks(...)`,
    `get_block_ids(...)`, `request.block_ids`) that was not sliced from a lower
    bound (`blocks[first:]`), including ids gathered by iterating such a list; and
    `record_blocks_for_zeroing(request_id, 0)` (zeroing from token 0; after the
    request was freed it records nothing, which is FT006's finding). An index
    filter against a boundary (`for i, b in enumerate(blocks): if i < first: continue`)
    bounds the list too. A range that starts before the confirmed boundary ("one block
    of margin", `confirmed // block_size - 1`) and whole-pool sources
    (`block_pool.blocks`) are broad as well, and so is a whole prefix-cache reset
    (`reset_prefix_cache()`) where it takes effect: with `reset_running_requests=True`,
    or after every request was freed or preempted (vLLM resets the cache only once no
    request holds blocks). The values are followed through helpers,
    aliases and collections (ftlint/analysis). Eviction outside fault paths (the
    KV-load-failure path) is not reported.

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

            from vllm.v1.request import RequestStatus

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
                            scheduler.finish_requests([request.request_id], RequestStatus.FINISHED_ABORTED)

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
            from vllm.v1.request import RequestStatus

            def on_fault(engine, exc):
                kv = engine.scheduler.kv_cache_manager
                for request in list(engine.scheduler.running):
                    blocks = kv.coordinator.single_type_managers[0].req_to_blocks[request.request_id]
                    evict_tail(kv, request, blocks)
                engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
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
            from vllm.v1.request import RequestStatus

            class Scheduler:
                def _handle_invalid_blocks(self, request, invalid_block_ids):
                    blocks = self.kv_cache_manager.coordinator.single_type_managers[0].req_to_blocks[request.request_id]
                    self.kv_cache_manager.evict_blocks({b.block_id for b in blocks})

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)  # noqa: FT007
            """,
            name="kv-load-failure-path-is-not-a-fault-path",
        ),
        Valid(
            """
            from vllm.v1.request import RequestStatus

            class Sentinel:
                def on_fault(self, exc):
                    running = list(self.scheduler.running)
                    self.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
                    for req in running:  # after the free it records nothing: FT006, not a broad zeroing
                        self.scheduler.kv_cache_manager.record_blocks_for_zeroing(req.request_id, 0)
            """,
            name="zeroing-from-token-0-after-the-free-is-ft006s",
        ),
    ]
    INVALID = [
        Invalid(
            """
            import time

            from vllm.v1.request import RequestStatus

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
                            scheduler.finish_requests([request.request_id], RequestStatus.FINISHED_ABORTED)

                def _evict_dirty_blocks(self, request):
                    kv = self.engine.scheduler.kv_cache_manager
                    for manager in kv.coordinator.single_type_managers:
                        blocks = manager.req_to_blocks[request.request_id]
                        kv.evict_blocks({b.block_id for b in blocks if not b.is_null})
            """,
            expect=((21, 13),),
            name="req-to-blocks-in-same-class-helper-abort-and-resume",
        ),
        Invalid(
            """
            from recovery import evict_request_blocks
            from vllm.v1.request import RequestStatus

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    kv = self.engine.scheduler.kv_cache_manager
                    for request in list(self.engine.scheduler.running):
                        evict_request_blocks(kv, request.request_id)
                    self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
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
            from vllm.v1.request import RequestStatus

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    kv = self.engine.scheduler.kv_cache_manager
                    for request in list(self.engine.scheduler.running):
                        self._evict(kv.get_block_ids(request.request_id)[0])
                        self._evict([b.block_id for b in kv.get_blocks(request.request_id).blocks[0][:8]])
                        self._zero(request.request_id)
                    self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)

                def _evict(self, block_ids):
                    self.engine.scheduler.kv_cache_manager.evict_blocks(set(block_ids))

                def _zero(self, request_id):
                    self.engine.scheduler.kv_cache_manager.record_blocks_for_zeroing(request_id, 0)
            """,
            expect=((7, 13), (8, 13), (16, 9)),
            name="get-block-ids-and-a-get-blocks-head-slice-passed-to-helper",
        ),
        Invalid(
            """
            from vllm.v1.request import RequestStatus

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    kv = self.engine.scheduler.kv_cache_manager
                    for request in list(self.engine.scheduler.running):
                        kv.evict_blocks(set(kv.get_blocks(request.request_id).get_block_ids()[0][:8]))
                    self.engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            """,
            expect=((7, 13, "every block of the request"),),
            name="the-ids-of-a-get-blocks-result-sliced-from-block-0",
        ),
        Invalid(
            """
            from vllm.v1.request import RequestStatus

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    sched = self.engine.scheduler
                    kv = sched.kv_cache_manager
                    for req in sched.running:
                        first = (req.num_computed_tokens - req.num_in_flight_tokens) // 16
                        for m in kv.coordinator.single_type_managers:
                            kv.evict_blocks({b.block_id for b in m.req_to_blocks[req.request_id][:first]})
                    sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            """,
            expect=((10, 17, "the confirmed blocks before the unconfirmed tail, not the tail"),),
            name="slice-up-to-the-boundary-evicts-the-confirmed-prefix",
        ),
        Invalid(
            """
            from vllm.v1.request import RequestStatus

            def on_fault(engine, exc):
                pool = engine.scheduler.kv_cache_manager.block_pool
                for request in list(engine.scheduler.running):
                    blocks = engine.scheduler.kv_cache_manager.get_blocks(request.request_id).blocks[0]
                    for i in range(len(blocks)):
                        pool._maybe_evict_cached_block(blocks[i])
                    for block in blocks:
                        pool._maybe_evict_cached_block(block)
                engine.scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            """,
            expect=((8, 13), (10, 13)),
            name="maybe-evict-every-block-in-a-loop",
        ),
        Invalid(
            """
            from vllm.v1.request import RequestStatus

            def on_fault(engine, exc):
                sched = engine.scheduler
                ids = set()
                for req in sched.running:
                    confirmed = req.num_computed_tokens - req.num_in_flight_tokens
                    for mgr in sched.kv_cache_manager.coordinator.single_type_managers:
                        start = max(confirmed // mgr.block_size - 1, 0)  # "one block of margin"
                        ids |= {b.block_id for b in mgr.req_to_blocks[req.request_id][start:]}
                sched.kv_cache_manager.evict_blocks(ids)
                pool = sched.kv_cache_manager.block_pool
                sched.kv_cache_manager.evict_blocks({b.block_id for b in pool.blocks if b.block_hash is not None})
                sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
            """,
            expect=((11, 5), (13, 5)),
            name="one-block-of-margin-and-a-whole-pool-sweep",
        ),
        Invalid(
            """
            from vllm.v1.request import RequestStatus

            class Sentinel:
                def on_fault(self, exc):
                    sched = self.engine.scheduler
                    sched.finish_requests(None, RequestStatus.FINISHED_ABORTED)
                    sched.reset_prefix_cache()  # no request holds blocks now: every hash goes
            """,
            expect=((7, 9, "every cached block"),),
            name="whole-prefix-cache-reset-after-the-abort",
        ),
    ]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        fn = self.scope(node).function
        if fn is None or not self.walked(node):
            return
        for fact in self.context.fault_paths.interpreter.facts(fn, BroadEvictionFact):
            self.report(fact.node, _message(fact))


_TAIL_FROM = "blocks from `(num_computed_tokens - num_in_flight_tokens) // block_size` on"
_GIVEN = {
    "whole": "every block of the request",
    "head": "the confirmed blocks before the unconfirmed tail, not the tail",
    "margin": "blocks before the unconfirmed tail (a block of margin)",
}


def _message(fact: BroadEvictionFact) -> str:
    if fact.extent == "pool":
        return (
            f"`{fact.callee}()` drops the hash of every cached block, the clean prefixes of every request included; "
            f"evict only the unconfirmed tail ({_TAIL_FROM})"
        )
    if fact.extent == "from-token-zero":
        return (
            f"`{fact.callee}()` from token 0 zeroes every block of the request; start at the confirmed boundary "
            "`num_computed_tokens - num_in_flight_tokens`"
        )
    tail = _TAIL_FROM if fact.tail_fields else "the blocks the failed step was writing"
    if fact.passed_to:
        return (
            f"Passes every block of a request (or token 0) to {ir.call_text(fact.node)}, which evicts them; evict only "
            f"the unconfirmed tail ({tail})"
        )
    return f"`{fact.callee}()` is given {_GIVEN[fact.extent]}; evict only the unconfirmed tail ({tail})"
