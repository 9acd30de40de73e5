"""Peephole optimiser for recovery plans.

A plan is a list of ``(op, arg)`` tuples: ``("evict", frozenset_of_block_ids)`` or
``("abort", request_id)``.  ``coalesce`` turns any number of them into at most two
operations, all evictions first (one ``evict_blocks`` call with the union of the
ids) and then one batched abort, preserving the request order of the aborts.
"""

from __future__ import annotations

from collections.abc import Iterable

Op = tuple[str, object]


def coalesce(plans: Iterable[list[Op]]) -> list[Op]:
    evict: set[int] = set()
    abort: list[str] = []
    for plan in plans:
        for op, arg in plan:
            if op == "evict":
                evict |= arg
            elif op == "abort":
                if arg not in abort:
                    abort.append(arg)
            else:
                raise ValueError(f"cannot coalesce op {op!r}")
    out: list[Op] = []
    if evict:
        out.append(("evict", frozenset(evict)))
    if abort:
        out.append(("abort_many", tuple(abort)))
    return out
