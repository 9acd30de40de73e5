"""What the path walk found, as neutral facts: one typed record per kind of outcome.

The analysis names no rule and words no message: a rule asks the interpreter for the facts
of one kind in one function (`Interpreter.facts(fn, Kind)`) and decides its code, its
message and its fix (rules/). Each fact is located at a node of the function `fn`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import libcst as cst

    from ftlint.index.project import Function

#: how an eviction on the path fell short of a freed request's unconfirmed tail
TailGap = Literal["none", "late", "head", "first-group", "dropped"]
#: which blocks an eviction or zeroing covers beyond the unconfirmed tail
Extent = Literal["whole", "head", "margin", "pool", "from-token-zero"]


@dataclass(frozen=True, eq=False)
class PathFact:
    fn: Function  # the function whose body holds `node`
    node: cst.CSTNode


@dataclass(frozen=True, eq=False)
class TailLeftCached(PathFact):
    """A free (or preempt) of requests, a rewind of their `num_computed_tokens` in place or a
    requeue by hand (`kind`), after which, at the end of a path out of the handler, no eviction dropped their
    unconfirmed tail (`gap` says how the eviction fell short)."""

    gap: TailGap
    #: the free is in a helper (see `other_file`); `node` is the call that reaches it
    through_helper: bool
    #: the handler whose walk reached it, when `fn` is not that handler
    entry: str | None
    #: "free": a free, preempt or abort; "rewind": `num_computed_tokens` set back in place;
    #: "requeue": put back in the waiting queue by hand (both keep the blocks and hashes)
    kind: Literal["free", "rewind", "requeue"] = "free"
    #: with `through_helper`: the helper is in another file (else a function of this file
    #: reached through a value, which the rules do not visit)
    other_file: bool = True


@dataclass(frozen=True, eq=False)
class StaleFrameDropped(PathFact):
    """A preempt with `drop_stale_output=True` (or `reset_prefix_cache(reset_running_requests=
    True)`) while the request still has in-flight tokens: the failed step's frame never comes,
    so the next good one is dropped."""

    every_running_request: bool  # through reset_prefix_cache(reset_running_requests=True)
    in_flight_field: str  # the counter that is not 0


@dataclass(frozen=True, eq=False)
class CountersLeftSet(PathFact):
    """A request preempted for resume whose counters are not all 0 at the end of a path."""

    request: cst.BaseExpression | None  # the preempted request, where the preempt is `node`
    request_text: str  # its source text ("the request" when unknown)
    fields: tuple[str, ...]  # the counters of the API generation a resume must reset
    in_helper: bool  # the preempt is inside a helper; `node` is the call that reaches it


@dataclass(frozen=True, eq=False)
class BroadEviction(PathFact):
    """An eviction (or zeroing) that covers more than the unconfirmed tail."""

    extent: Extent
    callee: str  # the called primitive's name
    passed_to: bool  # `node` passes the broad ids to a helper that evicts them
    tail_fields: bool  # the API generation's Request has num_in_flight_tokens


@dataclass(frozen=True, eq=False)
class ReadAfterFree(PathFact):
    """A free (`node`) after which the path reads the freed requests' blocks (`reader`):
    `req_to_blocks` was popped, so the reader finds none."""

    reader: cst.CSTNode
    reading: Literal["evict", "zero"]


@dataclass(frozen=True, eq=False)
class PrefixCacheResetCalled(PathFact):
    """A call (`node`) that reaches `reset_prefix_cache` however it is spelled: directly, through
    an alias, `getattr`, `functools.partial`, `operator.methodcaller` or a table of methods."""


@dataclass(frozen=True, eq=False)
class EvictionCalled(PathFact):
    """A call (`node`, in `fn`'s own code) that reaches an eviction or zeroing primitive
    however it is spelled: directly, through an alias, `getattr`, `functools.partial`,
    `operator.methodcaller` or a table of methods."""

    callee: str  # the primitive's name


@dataclass(frozen=True, eq=False)
class CounterDecrementedAtZero(PathFact):
    """A decrement of a request's counter (`req.field -= n`, `req.field = req.field - n`) that
    every path reaches while the counter is known to be 0: written 0 before it (directly,
    through `setattr`, `vars()` or a helper), or set to 0 by a primitive (a preempt on a vLLM
    whose preempt clears it). `node` is the counter written, or the call that reaches the
    helper of another file doing it."""

    field: str  # the counter
    target_text: str  # the counter written, as in the source (`req.num_output_placeholders`)
    zeroed_by: str  # the primitive that set it to 0, "" for a write of 0
    in_helper: bool  # the decrement is in a helper of another file; `node` is the call
