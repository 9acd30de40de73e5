"""Abstract values: what an expression of fault-path code denotes.

Values are plain tuples (hashable, cheap to compare), tagged by their first item;
None is "unknown". A request is identified by a *key*: the place it was bound
(an iteration over `scheduler.running`, a `running.pop()`, a parameter), so a
counter reset counts only on the request that was preempted, whatever its name.

    ("running",)                         scheduler.running, or a copy / filtered copy of it
    ("req", key)                         one running request
    ("req", key, original)               a copy of request `original` (`copy.copy(req)`):
                                         another object, the same request id and blocks
    ("rid", key)                         its request_id
    ("num", kind)                        a token / block count, see NUM_KINDS
    ("ids", key, start, groups, stale, origin)
                                         block ids (or blocks) of request `key` ("*": of
                                         every request / the pool): from which position
                                         (START_ORDER), in which KV-cache groups
                                         ("all" | "first"), read after the request was
                                         freed (stale: empty), made in function `origin`
    ("map", groups)                      req_to_blocks
    ("mgrs",) / ("mgr", groups)          single_type_managers, one (or each) of them
    ("idx", ids, start)                  an index over the positions of a block list
    ("enum", value)                      enumerate(value)
    ("range", start_kind, stop)          range(start, stop)
    ("len", ids)                         len() of a block list
    ("prim", name)                       a vLLM primitive, bound (`p = sched._preempt_request`)
    ("fn", Function, via_instance)       a project function, bound or not
    ("partial", callee, args, keywords)  functools.partial(callee, *args, **keywords)
    ("dict", ((key, value), ...))        a dict literal with constant keys (a method table)
    ("tuple", (value, ...))              a tuple / list literal of non-block values
    ("str", text), ("bool", flag), ("none",), ("param", name)
"""

from __future__ import annotations

from typing import TypeGuard

# Token / block quantities: the confirmed boundary is computed - inflight; block
# indices are token counts // block_size.
NUM_KINDS = ("computed", "inflight", "confirmed", "rem", "bs", "cblk", "kblk", "early", "zero", "other")

# Where a block range starts, from "covers the clean prefix too" to "covers nothing":
# whole (from block 0), early (before the confirmed boundary: a block of margin),
# tail (exactly the unconfirmed tail), unknown (cannot tell: assumed right), late
# (after the boundary, e.g. num_computed_tokens // block_size: misses the tail), head
# (`blocks[:boundary]`: the clean prefix only, broad and missing the tail), lhead (`blocks[:n]`
# with n from num_computed_tokens: the prefix and part of the tail), ehead (`blocks[:boundary -
# 1]`: a prefix ending before the tail), dropped (filtered by
# `block_id < len(blocks)`: a pool index compared with a request's block count drops the
# tail's ids), empty.
START_ORDER = ("whole", "early", "tail", "unknown", "late", "lhead", "head", "ehead", "dropped", "empty")
_RANK = {s: i for i, s in enumerate(START_ORDER)}

RUNNING = ("running",)
NONE = ("none",)
ZERO = ("num", "zero")
OTHER = ("num", "other")


def ids(key: str | None, start: str, groups: str = "all", stale: bool = False, origin=None) -> tuple:
    return ("ids", key, start, groups, stale, origin)


def is_ids(value) -> TypeGuard[tuple]:
    return value is not None and value[0] == "ids"


def is_empty_ids(value) -> bool:
    """Block ids known to be none (`set()` before anything was added)."""
    return is_ids(value) and value[2] == "empty"


def key_of(value) -> str | None:
    """The request a value stands for (a request, its id, a parameter), or None."""
    if value is None:
        return None
    tag = value[0]
    if tag in ("req", "rid"):
        return value[1]
    if tag == "param":
        return "p:" + value[1]
    return None


def with_start(value: tuple, start: str) -> tuple:
    return (*value[:2], start, *value[3:])


def join_ids(a: tuple, b: tuple) -> tuple:
    if a[2] == "empty":
        return b
    if b[2] == "empty":
        return a
    key = a[1] if a[1] == b[1] else "*"
    start = a[2] if _RANK[a[2]] <= _RANK[b[2]] else b[2]
    groups = "all" if "all" in (a[3], b[3]) else "first"
    return ("ids", key, start, groups, a[4] and b[4], a[5] or b[5])


def join(a, b):
    """The value of an expression that is `a` on one path and `b` on another."""
    if a == b:
        return a
    if is_ids(a) and is_ids(b):
        return join_ids(a, b)
    return None


def start_from_index(kind: str | None) -> str:
    """Where a slice / index filter starting at a number of this kind begins."""
    return {"zero": "whole", "cblk": "tail", "kblk": "late", "early": "early"}.get(kind or "", "unknown")
