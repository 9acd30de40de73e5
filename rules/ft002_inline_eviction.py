"""FT002 inline-eviction."""

from __future__ import annotations

from typing import cast

import libcst as cst

from ftlint.analysis.facts import EvictionCalled
from ftlint.core import vocabulary as V
from ftlint.lint.rule import FileContext, Invalid, Rule, Valid
from ftlint.syntax import ir
from ftlint.syntax import matchers as m

_COMPREHENSION = m.ListComp() | m.SetComp() | m.GeneratorExp() | m.DictComp()
_DISPLAY = m.List() | m.Set() | m.Tuple()
_LOOP = m.For() | m.While()
# Methods that add an element to a collection (`ids.append(b.block_id)` in a loop collects ids).
_COLLECTING_METHODS = frozenset({"append", "add", "extend", "update", "insert", "appendleft", "setdefault"})


class InlineEviction(Rule):
    """
    ## What it does
    Flags a fault handler (an entry point such as `on_fault`) that evicts KV blocks
    in its own body: a direct call of an eviction or zeroing primitive
    (`evict_blocks`, `record_blocks_for_zeroing`, `get_zeroing_block_ids_in_range`,
    `_maybe_evict_cached_block`), or a statement that collects a request's block ids
    (`req_to_blocks`, `get_blocks(...)`, `get_block_ids(...)`, `.block_ids`, or
    `.block_id` gathered in a comprehension or loop). Code in functions and lambdas
    nested in the handler counts as the handler's own body. Calling a project helper
    that evicts is what the rule asks for and is not reported; helpers are where
    eviction belongs, so they are not checked.

    ## Why is this bad?
    A fault handler has (at least) two exits, abort and resume, and the dirty
    unconfirmed tail must be evicted on both, *before* blocks are freed or the
    request is preempted. Eviction written inline is copied into one branch and
    forgotten in the other, mixes block bookkeeping (KV-cache groups, null blocks,
    the confirmed boundary) into control flow that is about requests, and cannot be
    unit-tested or reused by the sentinel's other recovery entry points. One named
    helper, called from every path, keeps the boundary computation in one place.

    ## Example
    ```python
    def on_fault(self, exc):
        scheduler = self.engine.scheduler
        kv = scheduler.kv_cache_manager
        for request in list(scheduler.running):
            blocks = kv.coordinator.single_type_managers[0].req_to_blocks[request.request_id]
            kv.evict_blocks({b.block_id for b in blocks[-1:]})
            scheduler._preempt_request(request, time.monotonic())
            request.num_in_flight_tokens = 0
            request.num_stale_output_tokens = 0
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

    def _evict_unconfirmed_tail(self, request):
        kv = self.engine.scheduler.kv_cache_manager
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        for manager in kv.coordinator.single_type_managers:
            tail = manager.req_to_blocks[request.request_id][confirmed // manager.block_size:]
            kv.evict_blocks({b.block_id for b in tail if not b.is_null})
    ```
    """

    CODE = "FT002"
    NAME = "inline-eviction"
    MESSAGE = "Fault handler evicts KV blocks in its own body; move the eviction into a named helper and call it on every path (abort and resume)"

    VALID = [
        Valid(
            """
            import time

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
                            scheduler.finish_requests([request.request_id], "aborted")

                def _evict_unconfirmed_tail(self, request):
                    kv = self.engine.scheduler.kv_cache_manager
                    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
                    for manager in kv.coordinator.single_type_managers:
                        blocks = manager.req_to_blocks[request.request_id]
                        tail = blocks[confirmed // manager.block_size:]
                        kv.evict_blocks({b.block_id for b in tail if not b.is_null})
            """,
            name="helper-in-same-class-abort-and-resume",
        ),
        Valid(
            """
            from recovery import evict_unconfirmed_tail

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    scheduler = self.engine.scheduler
                    for request in list(scheduler.running):
                        evict_unconfirmed_tail(scheduler.kv_cache_manager, request)
                    scheduler.finish_requests(None, "aborted")
            """,
            files={
                "recovery.py": """
def evict_unconfirmed_tail(kv, request):
    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
    kv.record_blocks_for_zeroing(request.request_id, confirmed - confirmed % 16)
    for manager in kv.coordinator.single_type_managers:
        ids = []
        for block in manager.req_to_blocks[request.request_id][confirmed // manager.block_size:]:
            ids.append(block.block_id)
        kv.evict_blocks(set(ids))
"""
            },
            name="helper-in-other-module",
        ),
        Valid(
            """
            class Scheduler:
                def _handle_invalid_blocks(self, request, invalid_block_ids):
                    blocks = self.kv_cache_manager.get_block_ids(request.request_id)
                    self.kv_cache_manager.evict_blocks(set(invalid_block_ids))

                def on_fault(self, exc):
                    for request in list(self.running):
                        self._handle_invalid_blocks(request, set())
                        self.finish_requests([request.request_id], "aborted")
            """,
            name="kv-load-failure-path-and-delegating-handler",
        ),
    ]
    INVALID = [
        Invalid(
            """
            import time

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    scheduler = self.engine.scheduler
                    kv = scheduler.kv_cache_manager
                    for request in list(scheduler.running):
                        blocks = kv.coordinator.single_type_managers[0].req_to_blocks[request.request_id]
                        kv.evict_blocks({b.block_id for b in blocks[-1:]})
                        scheduler._preempt_request(request, time.monotonic())
                        request.num_in_flight_tokens = 0
                        request.num_stale_output_tokens = 0
            """,
            expect=((8, 22, "collects block ids (`.req_to_blocks`)"), (9, 13, "calls `evict_blocks()`")),
            name="collect-and-evict-inline",
        ),
        Invalid(
            """
            import time

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    scheduler = self.engine.scheduler
                    kv = scheduler.kv_cache_manager
                    for request in list(scheduler.running):
                        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
                        if self.can_resume:
                            kv.record_blocks_for_zeroing(request.request_id, confirmed - confirmed % 16)
                            scheduler._preempt_request(request, time.monotonic())
                            request.num_in_flight_tokens = 0
                            request.num_stale_output_tokens = 0
                        else:
                            kv.record_blocks_for_zeroing(request.request_id, confirmed - confirmed % 16)
                            scheduler.finish_requests([request.request_id], "aborted")
            """,
            expect=((10, 17), (15, 17)),
            name="zeroing-inline-on-abort-and-resume",
        ),
        Invalid(
            """
            class EngineCoreSentinel:
                def on_fault(self, exc):
                    pool = self.engine.scheduler.kv_cache_manager.block_pool

                    def drop(request):
                        ids = []
                        for block in self.engine.scheduler.kv_cache_manager.get_blocks(request.request_id).blocks[0]:
                            ids.append(block.block_id)
                        for block_id in ids[-1:]:
                            pool._maybe_evict_cached_block(pool.blocks[block_id])

                    for request in list(self.engine.scheduler.running):
                        drop(request)
                    self.engine.scheduler.finish_requests(None, "aborted")
            """,
            expect=(
                (7, 26, "collects block ids (`get_blocks()`)"),
                (8, 28, "collects block ids (`.block_id`)"),
                (10, 17, "calls `_maybe_evict_cached_block()`"),
            ),
            name="nested-def-is-the-handlers-own-body",
        ),
        Invalid(
            """
            from recovery import evict_blocks_of

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    kv = self.engine.scheduler.kv_cache_manager
                    for request in list(self.engine.scheduler.running):
                        tail = request.block_ids[(request.num_computed_tokens - request.num_in_flight_tokens) // 16:]
                        evict_blocks_of(kv, tail)
                    self.engine.scheduler.finish_requests(None, "aborted")
            """,
            files={
                "recovery.py": """
def evict_blocks_of(kv, block_ids):
    kv.evict_blocks(set(block_ids))
"""
            },
            expect=((7, 20),),
            name="collects-ids-inline-for-helper-in-other-module",
        ),
        Invalid(
            """
            class EngineCoreSentinel:
                def on_fault(self, exc):
                    kv = self.engine.scheduler.kv_cache_manager
                    for request in list(self.engine.scheduler.running):
                        self._abort(request, kv.get_block_ids(request.request_id))

                def _abort(self, request, block_ids):
                    self.engine.scheduler.kv_cache_manager.evict_blocks(set(block_ids[0]))
                    self.engine.scheduler.finish_requests([request.request_id], "aborted")
            """,
            expect=((5, 34),),
            name="collects-ids-inline-for-helper-in-same-class",
        ),
        Invalid(
            """
            def on_fault(engine, exc):
                kv = engine.scheduler.kv_cache_manager
                evict = lambda ids: kv.evict_blocks(set(ids))
                for request in list(engine.scheduler.running):
                    evict([])
                engine.scheduler.finish_requests(None, "aborted")
            """,
            expect=((3, 25),),
            name="lambda-in-module-level-handler",
        ),
        Invalid(
            """
            import operator

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    scheduler = self.engine.scheduler
                    evict = lambda kv, ids: getattr(kv, "evict_blocks")(ids)
                    evict(scheduler.kv_cache_manager, self._tail_ids(scheduler))
                    operator.methodcaller("evict_blocks", set())(scheduler.kv_cache_manager)
                    scheduler.finish_requests(None, "aborted")
            """,
            expect=((6, 33, "calls `evict_blocks()`"), (8, 9)),
            name="eviction-spelled-through-getattr-in-a-lambda-or-a-methodcaller",
        ),
    ]

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        self._reported: set[int] = set()
        #: calls the path walk found reaching an eviction primitive, however spelled
        #: (`getattr(kv, "evict_blocks")`, a partial, a methodcaller, a table of methods)
        self._evicting_calls: dict[int, str] = {}

    # -- where the rule applies ----------------------------------------------
    def _in_handler_body(self, node: cst.CSTNode) -> bool:
        scope = self.scope(node)
        if scope.is_handler:
            return True
        fn = scope.function
        handlers = self.context.fault_paths.handlers
        while fn is not None:
            if fn in handlers:
                return True
            fn = fn.parent
        return False

    def _parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.parent(node)

    def _statement(self, node: cst.CSTNode) -> cst.CSTNode:
        current: cst.CSTNode | None = node
        while current is not None and not isinstance(current, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            current = self._parent(current)
        return current if current is not None else node

    def _flag(self, node: cst.CSTNode, message: str) -> None:
        if not self._in_handler_body(node):
            return
        statement = id(self._statement(node))
        if statement in self._reported:
            return
        self._reported.add(statement)
        self.report(node, message)

    # -- visits ----------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        fn = self.scope(node).function
        if fn is None or not self._in_handler_body(node):
            return
        for fact in self.context.fault_paths.interpreter.facts(fn, EvictionCalled):
            self._evicting_calls[id(fact.node)] = fact.callee

    def visit_Call(self, node: cst.Call) -> None:
        name = ir.called_name(node.func)
        evicts = name if name in V.EVICT_PRIMITIVES else self._evicting_calls.get(id(node))
        if evicts is not None:
            self._flag(
                node,
                f"Fault handler calls `{evicts}()` in its own body; move the eviction into a named helper "
                "and call it on every path (abort and resume)",
            )
        elif name in V.BLOCK_LIST_CALLS:
            self._flag(node, self._collect_message(f"{name}()"))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        attr = node.attr.value
        if attr == V.REQ_TO_BLOCKS or attr in V.BLOCK_LIST_ATTRS:
            if not self._is_call_target(node):
                self._flag(node, self._collect_message(f".{attr}"))
        elif attr == V.BLOCK_ID_ATTR and not self._is_call_target(node) and self._collects_ids(node):
            self._flag(node, self._collect_message(f".{attr}"))

    @staticmethod
    def _collect_message(what: str) -> str:
        return (
            f"Fault handler collects block ids (`{what}`) in its own body; move the eviction into a named "
            "helper and call it on every path (abort and resume)"
        )

    def _is_call_target(self, node: cst.Attribute) -> bool:
        parent = self._parent(node)
        return isinstance(parent, cst.Call) and parent.func is node

    def _collects_ids(self, node: cst.Attribute) -> bool:
        """`.block_id` read as the element of a comprehension, or added to a collection in a loop."""
        child: cst.CSTNode = node
        current = self._parent(node)
        collecting = False
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            if m.matches(current, _COMPREHENSION):
                elements = (
                    (current.key, current.value)
                    if isinstance(current, cst.DictComp)
                    else (cast(cst.ListComp | cst.SetComp | cst.GeneratorExp, current).elt,)
                )
                if any(child is e for e in elements):
                    return True
            elif (
                m.matches(current, _DISPLAY)
                or isinstance(current, cst.AugAssign)
                or (
                    isinstance(current, cst.Call)
                    and child is not current.func
                    and ir.called_name(current.func) in _COLLECTING_METHODS
                    and isinstance(current.func, cst.Attribute)
                )
            ):
                collecting = True
            elif m.matches(current, _LOOP) and collecting:
                return True
            child = current
            current = self._parent(current)
        return False
