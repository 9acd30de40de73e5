"""What vLLM's primitives do to a path's state (vocabulary.EFFECTS, per API generation):
evictions and how well they cover each request's dirty tail, frees, preempts and the
counters they leave set, counter writes, prefix-cache resets; and the facts they leave."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, cast

import libcst as cst

from ftlint.analysis import values as Val
from ftlint.analysis.facts import BroadEviction, EvictionCalled, Extent, PrefixCacheResetCalled, ReadAfterFree, TailGap
from ftlint.analysis.walk.base import WalkBase
from ftlint.analysis.walk.state import Site, State, covered, may_cover, not_at_zero, reset_pending, skipped
from ftlint.core import vocabulary as V
from ftlint.syntax import ir

if TYPE_CHECKING:
    from collections.abc import Sequence

#: a keyword of a call's arguments: an unknown `**mapping` was passed (any keyword may be in it)
UNKNOWN_KEYWORDS = "**"

Args = list[Val.Value]
Keywords = dict[str, Val.Value]
Effect = tuple[Val.Value, State]


def _complementary(state: State) -> bool:
    """Part of the running requests (`running[1:]`) and one picked by position (`running[0]`)
    both evicted on this path: taken as every request (which part is left out is not modelled)."""
    parts = {k[:3] for k, q in state.evicted if q == "ok" and (k == "partial" or k.startswith("at:"))}
    return parts == {"par", "at:"}


class Effects(WalkBase):
    """The effect of each vLLM primitive on a path's state."""

    def covered(self, state: State, key: str) -> TailGap | None:
        """None when the request's dirty tail was evicted on this path, else how not."""
        qualities = {q for k, q in state.evicted if may_cover(k, key)}
        if "ok" in qualities or (key == "*" and _complementary(state)):
            return None
        for gap in ("late", "head", "dropped", "first-group"):
            if gap in qualities:
                return cast(TailGap, gap)
        return "none"

    def free(self, key: str | None, node: cst.CSTNode, state: State) -> State:
        return state.replace(freed=state.freed | {(key or "*", self.site(node))})

    def rewind(
        self, base: Val.Value, node: cst.CSTNode, state: State, kind: Literal["rewind", "requeue"] = "rewind"
    ) -> State:
        """`request.num_computed_tokens = ...` (or `-=`): the request is rewound in place and
        keeps its blocks, hashes included: its dirty tail must be evicted like a freed one's.
        Silent where the request is unknown or not a running one (a waiting request has no
        blocks of the failed step)."""
        key = Val.key_of(base)
        if key is None or key.startswith(("q:", "p:")):
            return state
        site = Site(self.fn, node, self.stack[-1][1], rewind=kind)
        return state.replace(freed=state.freed | {(key, site)})

    def preempt(
        self, request: Val.Value, drop: bool, node: cst.CSTNode, state: State, *, flag_undone_by_resets: bool = False
    ) -> State:
        """`_preempt_request` frees the request's blocks and sets num_stale_output_tokens =
        num_in_flight_tokens (vLLM's scheduler.py): the request resumes cleanly when both
        counters are 0 afterwards, or num_in_flight_tokens was 0 at the preempt.

        drop_stale_output=True marks those stale tokens to be dropped: nothing is dropped
        when num_in_flight_tokens is 0 at the preempt. A flag the handler passes itself is a
        StaleFrameDropped otherwise; the one `reset_prefix_cache(reset_running_requests=True)`
        passes is one only while the counters are still set at the end of the path
        (resetting both undoes it)."""
        key = Val.key_of(request)
        state = self.free(key, node, state)
        zeroed = {f for k, f in state.zeroed if k in (key, "*")} if key is not None else set()
        if drop:
            self.drops.add(id(node))
            in_flight_zero = self.gen.preempt_copies_in_flight and V.COUNTER_FIELDS[0] in zeroed
            if in_flight_zero:
                return state  # num_stale_output_tokens becomes 0: no frame to drop, no counter to reset
            if not flag_undone_by_resets or key is None:
                self.harmful_drops.add(id(node))
                if self.is_handler:
                    self.report_drop(self.site(node))
                return state
        if key is None:
            return state
        if self.gen.preempt_copies_in_flight:
            missing = frozenset() if V.COUNTER_FIELDS[0] in zeroed else frozenset(self.gen.counters)
        else:
            missing = frozenset(self.gen.counters) - zeroed
        if not missing:
            return state
        return state.replace(pending=state.pending | {(key, self.site(node), missing)})

    def write_fields(self, target: Val.Value, args: Sequence[Val.Value], keywords: Keywords, state: State) -> State:
        """Fields written on `target` (a request, or unknown) from a mapping: `setattr(r, f, v)`,
        `vars(r).update(...)`, a helper's `**fields`. A 0 resets a counter; a write the walk cannot
        read (an unknown name, value, mapping or object) may reset one: the preempts it may
        concern are no longer reported (precision first)."""
        key = Val.key_of(target)
        mapping = args[0] if args else Val.Table(())
        if not isinstance(mapping, Val.Table) or UNKNOWN_KEYWORDS in keywords:
            return self.may_reset(key, state, "fields written from a mapping it cannot read")
        items = [*mapping.items, *keywords.items()]
        for field_name, value in items:
            if not isinstance(field_name, str) or field_name not in V.ALL_COUNTER_FIELDS:
                continue
            if key is None or value is None:
                state = self.may_reset(
                    key, state, f"`{field_name}` written with a value or on an object it cannot tell"
                )
            elif value == Val.ZERO:
                state = self.reset(key, field_name, state)
            else:
                state = state.replace(zeroed=frozenset(z for z in state.zeroed if z != (key, field_name)))
                state = not_at_zero(state, key, field_name)
        return state

    def may_reset(self, key: str | None, state: State, why: str) -> State:
        """A write that may set the counters of request `key` (None: of any request) to 0."""
        state = not_at_zero(state, key, None)
        kept = frozenset(p for p in state.pending if key is not None and p[0] not in (key, "*"))
        if kept == state.pending:
            return state
        self.interp.note(f"{self.fn.qualname}: {why}; the counters it may reset are not reported")
        return state.replace(pending=kept)

    def reset(self, key: str | None, counter: str, state: State) -> State:
        if key is None:
            return state
        state = not_at_zero(state, key, counter)
        state = state.replace(at_zero=state.at_zero | {(key, counter, "")})
        in_loop = any(key in loop for loop in self.loops)  # this loop's request: one of "*"
        after = reset_pending(state, {counter}, lambda k: k == key or (k == "*" and in_loop))
        if after is not None:
            return after
        if key.startswith("q:"):
            # a request of a list the walk cannot see into, reset after one preempted from such a
            # list: the same list read twice (`self._batch`) may hold the same request
            after = reset_pending(state, {counter}, lambda k: k.startswith("q:"))
            if after is not None:
                self.interp.note(f"{self.fn.qualname}: `{counter}` reset on an item of a list it cannot see into")
                return after
        return state.replace(zeroed=state.zeroed | {(key, counter)})

    def evict(self, value: Val.Value, node: cst.CSTNode, state: State) -> State:
        if not isinstance(value, Val.Ids):
            return covered(state)
        if value.start == "empty" and skipped(state):
            # nothing collected because a loop skipped the request (`if req.num_in_flight_tokens
            # > 0: continue`): the empty set evicts nothing (elsewhere an empty set the walk saw
            # no add to is taken as covering, precision first)
            return state
        key, start = value.key or "*", value.start
        if value.stale:
            self.stale(key, node, state, "evict")
            return state
        if start in ("whole", "early", "head", "lhead", "ehead"):
            self.broad(value, node, "head" if start in ("lhead", "ehead") else start)
        return state.replace(evicted=state.evicted | {(key, Val.quality(value))})

    def reset_prefix_cache(
        self, name: str, args: Sequence[Val.Value], keywords: Keywords, node: cst.CSTNode, state: State
    ) -> Effect:
        """`Scheduler.reset_prefix_cache(reset_running_requests=True)` preempts every running
        request with drop_stale_output=True, then `KVCacheManager.reset_prefix_cache()` drops
        the hash of every block in the pool, which succeeds only once no request holds
        blocks (block_pool.py): a BroadEviction when it runs after every request was freed
        or preempted, or with reset_running_requests=True."""
        here = self.site(node)
        self.add(PrefixCacheResetCalled(here.fn, node))
        keyword, index = V.RESET_RUNNING_REQUESTS
        flag = keywords.get(keyword, args[index] if len(args) > index else None)
        preempts = flag == Val.TRUE
        if preempts:
            state = self.preempt(Val.Req("*"), True, node, state, flag_undone_by_resets=True)
        if preempts or "*" in state.freed_keys():
            site = self.site(node)
            self.add(BroadEviction(site.fn, node, "pool", name, False, self.gen.in_flight))
            # It succeeds: no dirty tail is left to blame on a missing eviction.
            return Val.NONE, covered(state)
        # Otherwise running requests still hold blocks: it fails and drops no hash.
        return Val.NONE, state

    def stale(self, key: str, node: cst.CSTNode, state: State, reading: Literal["evict", "zero"]) -> None:
        for freed_key, site in state.freed:
            if not site.rewind and (freed_key in (key, "*") or key == "*"):
                where = self.placed(site)
                self.add(ReadAfterFree(where.fn, where.node, node, reading))

    def broad(self, value: Val.Ids, node: cst.CSTNode, start: str) -> None:
        origin = value.origin
        site = self.site(node)
        where = site
        current: Site | None = site
        while current is not None:
            if current.fn is origin:
                where = current
                break
            current = current.caller
        placed = self.placed(where)  # in a function only a value led to: at the call reaching it
        name = ir.called_name(node.func) if isinstance(node, cst.Call) else V.EVICT_BLOCKS
        extent = cast("Extent", start if start in ("whole", "head") else "margin")
        self.add(
            BroadEviction(
                placed.fn, placed.node, extent, name or V.EVICT_BLOCKS, placed is not site, self.gen.in_flight
            )
        )

    def primitive(
        self,
        name: str,
        args: Sequence[Val.Value],
        keywords: Keywords,
        node: cst.CSTNode,
        state: State,
        receiver_name: str = "",
    ) -> Effect:
        """The effect of a vLLM primitive; returns (value, state)."""
        kind = V.EFFECTS.get(name)
        if name == "free" and receiver_name.endswith(V.KV_MANAGER_FREE[0]):
            kind = "free"
        if kind in ("evict", "zero") and not self.relocating():
            self.add(EvictionCalled(self.fn, node, name))
        if kind == "evict":
            return Val.NONE, self.evict(args[0] if args else keywords.get("block_ids"), node, state)
        if kind == "zero":
            return Val.NONE, self._zero(name, args, keywords, node, state)
        if kind == "preempt":
            return Val.NONE, self._preempt_call(name, args, keywords, node, state)
        if kind == "finish":
            target = keywords.get("request_ids", args[0] if args else None)
            key = Val.key_of(target)
            if key is None and isinstance(target, Val.Seq) and len(target.items) == 1:
                key = Val.key_of(target.items[0])
            # it returns the requests it finished: every running one, when it frees them all
            return (Val.RUNNING if key is None else None), self.free(key, node, state)
        if kind == "free":
            request = keywords.get("request", args[0] if args else None)
            return Val.NONE, self.free(Val.key_of(request), node, state)
        if kind == "reset-prefix-cache":
            return self.reset_prefix_cache(name, args, keywords, node, state)
        return None, state

    def _zero(self, name: str, args: Sequence[Val.Value], keywords: Keywords, node: cst.CSTNode, state: State) -> State:
        request = keywords.get(V.REQUEST_ID, args[0] if args else None)
        start = keywords.get(V.ZEROING_START_ARG[0], args[1] if len(args) > 1 else None)
        key = Val.key_of(request)
        freed = state.freed_keys()
        if key is not None and (key in freed or "*" in freed):
            # freed: it records nothing (req_to_blocks was popped), so it zeroes no
            # block, let alone every one: a read after the free, not a broad one
            self.stale(key, node, state, "zero")
        elif start == Val.ZERO:
            site = self.site(node)
            self.add(BroadEviction(site.fn, node, "from-token-zero", name, False, self.gen.in_flight))
        return state

    def _preempt_call(
        self, name: str, args: Sequence[Val.Value], keywords: Keywords, node: cst.CSTNode, state: State
    ) -> State:
        named = [keywords[k] for k in ir.REQUEST_KEYWORDS if k in keywords]
        request = named[0] if named else (args[0] if args else None)
        drop = keywords.get(V.DROP_STALE_OUTPUT, args[2] if len(args) > 2 else None) == Val.TRUE
        state = self.preempt(request, drop, node, state)
        key = Val.key_of(request)
        if self.gen.preempt_copies_in_flight and key is not None:  # vLLM >= 0.27: it sets the placeholders to 0
            state = not_at_zero(state, key, V.NUM_OUTPUT_PLACEHOLDERS)
            state = state.replace(at_zero=state.at_zero | {(key, V.NUM_OUTPUT_PLACEHOLDERS, name)})
        return state
