"""FT003 defensive-range-check."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import cast

import libcst as cst

from ftlint.lint.rule import FileContext, Invalid, Rule, Valid
from ftlint.syntax import ir
from ftlint.syntax import matchers as m

_ORDER = m.LessThan() | m.LessThanEqual() | m.GreaterThan() | m.GreaterThanEqual()
_MEMBER = m.In() | m.NotIn()
_LEN = m.Call(func=m.Name("len"))
# `len(y)`, `len(y) - 1`, `len(y) + 1`
_LEN_BOUND = _LEN | m.BinaryOperation(left=_LEN, operator=m.Subtract() | m.Add(), right=m.Integer())
_LITERAL = m.Integer() | m.Float() | m.UnaryOperation(expression=m.Integer()) | m.Name("None")
_ZERO = m.Integer("0")
_RANGE = m.Call(func=m.Name("range"))
# Names that count things rather than index them: `num_tokens < len(x)` is not a range check.
# Neither are limits (`len(xs) >= max_peers`, `len(xs) < max(64, n)`).
_COUNT_NAME = re.compile(
    r"token|count|total|size|length|_len$|^len_|capacity|limit|threshold|budget|width|max|^num_|^n_|^n$", re.IGNORECASE
)
_LIMIT_CALLS = frozenset({"len", "range", "max", "min", "abs"})


def _identifier(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def _is_index(node: cst.BaseExpression) -> bool:
    """An expression that can be a block id or an index (not a literal, a length or a count)."""
    if m.matches(node, _LITERAL) or m.matches(node, _LEN_BOUND):
        return False
    if isinstance(node, (cst.Name, cst.Attribute)):
        return not _COUNT_NAME.search(_identifier(node) or "")
    if isinstance(node, cst.Subscript):
        return True
    if isinstance(node, cst.BinaryOperation):  # `i + 1`, `confirmed // block_size`, `1 + i`
        return _is_index(node.left) or (m.matches(node.left, _LITERAL) and _is_index(node.right))
    if isinstance(node, cst.UnaryOperation):
        return _is_index(node.expression)
    if isinstance(node, cst.Call):
        name = ir.called_name(node.func) or ""
        return name not in _LIMIT_CALLS and not _COUNT_NAME.search(name)
    return False


def _pairs(node: cst.Comparison) -> Iterator[tuple[cst.BaseExpression, cst.BaseCompOp, cst.BaseExpression]]:
    left = node.left
    for target in node.comparisons:
        yield left, target.operator, target.comparator
        left = target.comparator


def _range_stop(call: cst.Call) -> cst.BaseExpression | None:
    """The stop of `range(stop)` / `range(0, stop)` (a range that starts at 0), else None."""
    args = [a for a in call.args if a.keyword is None and a.star == ""]
    if len(args) == 1:
        return args[0].value
    if len(args) in (2, 3) and m.matches(args[0].value, _ZERO):
        return args[1].value
    return None


def range_check_index(node: cst.Comparison) -> cst.BaseExpression | None:
    """The index a comparison bounds against a length (`x < len(y)`, `0 <= x < len(y)`,
    `len(y) > x`, `x >= len(y)`, `x in range(len(y))`), or None."""
    for left, operator, right in _pairs(node):
        if m.matches(operator, _ORDER):
            if m.matches(right, _LEN_BOUND) and _is_index(left):
                return left
            if m.matches(left, _LEN_BOUND) and _is_index(right):
                return right
        elif m.matches(operator, _MEMBER) and m.matches(right, _RANGE):
            stop = _range_stop(cast(cst.Call, right))  # _RANGE matched a call
            if stop is not None and m.matches(stop, _LEN_BOUND) and _is_index(left):
                return left
    return None


def lower_bound_index(node: cst.BaseExpression) -> str | None:
    """The code of `x` in `x >= 0`, `0 <= x`, `x > -1`, `x < 0`, `0 > x` (a check against 0), else None."""
    if not isinstance(node, cst.Comparison) or len(node.comparisons) != 1:
        return None
    left, operator, right = next(_pairs(node))
    zero = _ZERO | m.UnaryOperation(operator=m.Minus(), expression=m.Integer("1"))
    if m.matches(operator, _ORDER):
        if m.matches(right, zero) and _is_index(left):
            return ir.code_of(left)
        if m.matches(left, zero) and _is_index(right):
            return ir.code_of(right)
    return None


class DefensiveRangeCheck(Rule):
    """
    ## What it does
    Flags a bounds check of a block id or index against a length in fault-path code
    (fault handlers and the helpers they reach): `0 <= x < len(y)`, `x < len(y)`,
    `len(y) > x`, `x >= 0 and x < len(y)`, the negative forms (`x >= len(y)`,
    `x < 0 or x >= len(y)`, `not (...)`) and `x in range(len(y))`. A bound paired
    with `x >= 0` in one `and`/`or` is reported once, at the boolean operation.
    `assert` statements (invariants), `while` loop conditions (iteration), `is_null`
    filters and comparisons that do not bound an index against a length (token
    counts, `inflight <= 0`, `x >= 0` alone) are not reported.

    ## Why is this bad?
    The block ids and indices a fault handler works with come from the scheduler's
    own tables (`req_to_blocks`, the confirmed boundary), so they are in range by
    construction, and `BlockPool.evict_blocks` already asserts
    `block_id < len(self.blocks)`. A defensive check that silently *skips* an out of
    range id hides the bug it guards against: a wrong boundary computation leaves a
    dirty block cached instead of failing loudly, and the next request that hits it
    reads KV that was never computed.

    ## Example
    ```python
    def _evict_unconfirmed_tail(self, request):
        kv = self.engine.scheduler.kv_cache_manager
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        blocks = kv.coordinator.single_type_managers[0].req_to_blocks[request.request_id]
        first = confirmed // kv.block_size
        if 0 <= first < len(blocks):
            kv.evict_blocks({b.block_id for b in blocks[first:] if not b.is_null})
    ```

    Use instead:
    ```python
    def _evict_unconfirmed_tail(self, request):
        kv = self.engine.scheduler.kv_cache_manager
        confirmed = request.num_computed_tokens - request.num_in_flight_tokens
        blocks = kv.coordinator.single_type_managers[0].req_to_blocks[request.request_id]
        first = confirmed // kv.block_size
        kv.evict_blocks({b.block_id for b in blocks[first:] if not b.is_null})
    ```
    """

    CODE = "FT003"
    NAME = "defensive-range-check"
    MESSAGE = "Defensive range check of a block id or index on the fault path; ids come from the scheduler's own tables and `evict_blocks` already asserts the bound"

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
                    if request.num_in_flight_tokens <= 0:
                        return
                    if confirmed >= 0 and request.num_computed_tokens < len(request.all_token_ids):
                        pass
                    for manager in kv.coordinator.single_type_managers:
                        blocks = manager.req_to_blocks[request.request_id]
                        first = confirmed // manager.block_size
                        assert 0 <= first <= len(blocks)
                        assert first < len(blocks) or not blocks, "boundary past the block table"
                        kv.evict_blocks({b.block_id for b in blocks[first:] if not b.is_null})
            """,
            name="asserts-token-counts-and-is-null-in-same-class-helper",
        ),
        Valid(
            """
            class UmbpConnectorScheduler:
                def _lookup(self, pool, block_id):
                    if 0 <= block_id < len(pool.blocks):
                        return pool.blocks[block_id]
                    return None

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    self.engine.scheduler.finish_requests(None, "aborted")  # noqa: FT007
            """,
            name="connector-code-not-reached-from-a-handler",
        ),
        Valid(
            """
            from recovery import evict_tail

            def on_fault(engine, exc):
                for request in list(engine.scheduler.running):
                    evict_tail(engine.scheduler.kv_cache_manager, request)
                engine.scheduler.finish_requests(None, "aborted")
            """,
            files={
                "recovery.py": """
def evict_tail(kv, request):
    blocks = kv.coordinator.single_type_managers[0].req_to_blocks[request.request_id]
    i = (request.num_computed_tokens - request.num_in_flight_tokens) // 16
    while i < len(blocks):
        if not blocks[i].is_null:
            kv.evict_blocks({blocks[i].block_id})
        i += 1
    if len(blocks) > 0 and len(blocks) >= 2:
        pass
"""
            },
            name="loop-bound-and-length-checks-in-helper-in-other-module",
        ),
    ]
    INVALID = [
        Invalid(
            """
            class EngineCoreSentinel:
                def on_fault(self, exc):
                    for request in list(self.engine.scheduler.running):
                        self._evict_unconfirmed_tail(request)
                    self.engine.scheduler.finish_requests(None, "aborted")

                def _evict_unconfirmed_tail(self, request):
                    kv = self.engine.scheduler.kv_cache_manager
                    confirmed = request.num_computed_tokens - request.num_in_flight_tokens
                    blocks = kv.coordinator.single_type_managers[0].req_to_blocks[request.request_id]
                    first = confirmed // kv.block_size
                    if 0 <= first < len(blocks):
                        kv.evict_blocks({b.block_id for b in blocks[first:]})
            """,
            expect=((12, 12),),
            name="chained-check-in-same-class-helper",
        ),
        Invalid(
            """
            from recovery import evict_ids

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    kv = self.engine.scheduler.kv_cache_manager
                    for request in list(self.engine.scheduler.running):
                        evict_ids(kv, request)
                    self.engine.scheduler.finish_requests(None, "aborted")
            """,
            files={
                "recovery.py": """
def evict_ids(kv, request):
    pool = kv.block_pool
    ids = set()
    for bid in tail_ids(request):
        if bid >= len(pool.blocks):
            continue
        if not (bid < len(pool.blocks)):
            continue
        if len(pool.blocks) - 1 < bid:
            continue
        ids.add(bid)
    kv.evict_blocks(ids)
"""
            },
            expect=(("recovery.py", 5, 12), ("recovery.py", 7, 17), ("recovery.py", 9, 12)),
            name="negative-forms-in-helper-in-other-module",
        ),
        Invalid(
            """
            import time

            class EngineCoreSentinel:
                def on_fault(self, exc):
                    scheduler = self.engine.scheduler
                    pool = scheduler.kv_cache_manager.block_pool
                    for request in list(scheduler.running):
                        bid = self.tail_block_id(request)
                        if self.can_resume:
                            if bid >= 0 and bid < len(pool.blocks):
                                self.evict(bid)
                            scheduler._preempt_request(request, time.monotonic())
                            request.num_in_flight_tokens = 0
                            request.num_stale_output_tokens = 0
                        else:
                            if bid < 0 or len(pool.blocks) <= bid:
                                pass
                            elif bid in range(len(pool.blocks)):
                                self.evict(bid)
                            scheduler.finish_requests([request.request_id], "aborted")
            """,
            expect=((10, 20), (16, 20), (18, 22)),
            name="pairs-and-range-on-abort-and-resume",
        ),
    ]

    def __init__(self, context: FileContext) -> None:
        super().__init__(context)
        self._asserts = 0
        self._while_tests: set[int] = set()
        self._covered: set[int] = set()  # comparisons already reported through their `and`/`or`

    def visit_Assert(self, node: cst.Assert) -> None:
        self._asserts += 1

    def leave_Assert(self, original_node: cst.Assert) -> None:
        self._asserts -= 1

    def visit_While(self, node: cst.While) -> None:
        test = node.test
        pending = [test]
        while pending:  # the loop bound of `while i < len(xs) and ...` is iteration, not a guard
            current = pending.pop()
            self._while_tests.add(id(current))
            if isinstance(current, cst.BooleanOperation):
                pending.extend((current.left, current.right))

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        if self._asserts or id(node) in self._covered or id(node) in self._while_tests:
            return
        if not self.in_fault_path(node):
            return
        operands: list[cst.BaseExpression] = []
        self._flatten(node, operands)
        lower = {lower_bound_index(op) for op in operands} - {None}
        bounded = [op for op in operands if isinstance(op, cst.Comparison) and range_check_index(op) is not None]
        if lower and any(ir.code_of(cast(cst.BaseExpression, range_check_index(op))) in lower for op in bounded):
            self._covered.update(id(op) for op in bounded)
            self.report(node)

    def _flatten(self, node: cst.BaseExpression, out: list[cst.BaseExpression]) -> None:
        if isinstance(node, cst.BooleanOperation):
            self._covered.add(id(node))
            self._flatten(node.left, out)
            self._flatten(node.right, out)
        else:
            out.append(node)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if self._asserts or id(node) in self._covered or id(node) in self._while_tests:
            return
        if range_check_index(node) is not None and self.in_fault_path(node):
            self.report(node)
