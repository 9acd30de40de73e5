"""A path's state: its abstract store and what it did to vLLM's model so far.

Statements map lists of states to lists of states; `Flow` sorts them by how they leave a
statement (on to the next one, `break`, `continue`, `return`, an exception). Past
MAX_STATES paths, states are merged into one that keeps every path's frees and unreset
counters (no finding is lost) and counts an eviction of any path (no finding is made up).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from ftlint.analysis import values as Val

if TYPE_CHECKING:
    from collections.abc import Callable

    import libcst as cst

    from ftlint.index.project import Function

MAX_STATES = 32

#: {(request key, "ok" | a TailGap)}; the markers `skip(loop)` and `("#gate", side)` share the set
Evicted = frozenset[tuple[str, str]]


def skip(loop: int) -> tuple[str, str]:
    """The marker of a path on which an iteration of this loop (the id() of its node)
    skipped a request for another reason than "no dirty tail"."""
    return ("#skip", str(loop))


def skipping(state: State, loop: int) -> State:
    """`state` marked as a path on which this loop skipped a request (see skip)."""
    return state.replace(evicted=state.evicted | {skip(loop)})


def switched_off(state: State, node: int) -> State:
    """`state` marked as a path on which a switch off by default skipped what collects or
    evicts the ids (the id() of its `if`): kept after the loops around it, unlike a skip."""
    return state.replace(evicted=state.evicted | {("#off", str(node))})


def skipped(state: State) -> bool:
    return any(k in ("#skip", "#off") for k, _ in state.evicted)


@dataclass(frozen=True, eq=False)
class Site:
    """Where an effect happened: the node, its function, and the call that led there."""

    fn: Function
    node: cst.CSTNode
    caller: Site | None = None
    #: not a free: "rewind" (`num_computed_tokens` set back in place) or "requeue" (put back
    #: in the waiting queue): the request keeps its blocks, hashes included
    rewind: Literal["", "rewind", "requeue"] = ""


Env = dict[str, Val.Value]
Freed = frozenset[tuple[str, Site]]
#: {(request key, the preempt's Site, the counters still to reset)}
Pending = frozenset[tuple[str, Site, frozenset[str]]]
#: {(request key, counter)} zeroed before a preempt
Zeroed = frozenset[tuple[str, str]]
#: {(request key, counter, by)}: counters known to be 0 now, written 0 (by "") or set to 0
#: by the primitive named `by` (a preempt)
AtZero = frozenset[tuple[str, str, str]]


#: the prefix of the names under which the attributes of objects made in the walk are kept
HEAP = "\x00heap:"
#: the name a path binds where a test found the confirmed token count 0 (`if confirmed <= 0:`):
#: a function's `return 0` there is the block the dirty tail begins in
CONFIRMED_ZERO = "<confirmed-zero>"
#: the prefix of the name an `ExitStack`'s registered callbacks are kept under in a path's env
EXIT_STACK = "\x00exitstack:"


def cell(owner: Val.Instance, attr: str) -> str:
    """The name of `owner.attr` among a state's names."""
    return f"{HEAP}{owner.oid}.{attr}"


def heap_of(env: Env) -> dict[str, Val.Value]:
    """The attributes of the objects made in the walk, as `env` holds them."""
    return {name: value for name, value in env.items() if name.startswith(HEAP)}


class State:
    __slots__ = ("_key", "at_zero", "env", "evicted", "freed", "pending", "zeroed")

    def __init__(
        self,
        env: Env,
        evicted: Evicted = frozenset(),
        freed: Freed = frozenset(),
        pending: Pending = frozenset(),
        zeroed: Zeroed = frozenset(),
        at_zero: AtZero = frozenset(),
    ) -> None:
        self.env = env  # never mutated once shared (copy-on-write through `bind`)
        self.evicted = evicted
        self.freed = freed
        self.pending = pending
        self.zeroed = zeroed
        self.at_zero = at_zero
        self._key: tuple[object, ...] | None = None

    def replace(self, **changes: object) -> State:
        new = State(self.env, self.evicted, self.freed, self.pending, self.zeroed, self.at_zero)
        for name, value in changes.items():
            setattr(new, name, value)
        return new

    def bind(self, name: str, value: Val.Value) -> State:
        env = dict(self.env)
        head, dot, attr = name.partition(".")
        owner = env.get(head) if dot and "." not in attr else None
        if isinstance(owner, Val.Instance) and owner.oid:
            env[cell(owner, attr)] = value  # `self.steps = [...]` on an object the walk made
        else:
            env[name] = value
        return self.replace(env=env)

    def key(self) -> tuple[object, ...]:
        if self._key is None:
            self._key = (
                tuple(sorted(self.env.items(), key=lambda kv: kv[0])),
                self.evicted,
                self.freed,
                self.pending,
                self.zeroed,
                self.at_zero,
            )
        return self._key

    def freed_keys(self) -> set[str]:
        return {k for k, site in self.freed if not site.rewind}


#: the value of an expression on one path, and that path's state after it
Results = list[tuple[Val.Value, State]]


def dedupe(states: list[State]) -> list[State]:
    seen: dict[object, State] = {}
    for s in states:
        try:
            seen.setdefault(s.key(), s)
        except TypeError:  # an unhashable value slipped into the store
            seen.setdefault(id(s), s)
    out = list(seen.values())
    return out if len(out) <= MAX_STATES else [merge(out)]


def merge(states: list[State]) -> State:
    """One state standing for many (past MAX_STATES paths): evictions of any path
    count, frees and unreset counters of any path are kept."""
    first = states[0]
    env = dict(first.env)
    evicted, freed, pending, zeroed = set(first.evicted), set(first.freed), set(first.pending), set(first.zeroed)
    at_zero = set(first.at_zero)
    for s in states[1:]:
        at_zero &= s.at_zero  # known to be 0 only where every path knows it
        for name in set(env) | set(s.env):
            env[name] = Val.join(env.get(name), s.env.get(name))
        evicted |= s.evicted  # an eviction on any path counts: fewer uncovered frees
        zeroed &= s.zeroed
        freed |= s.freed  # a free on any path is still a free to check
        pending |= s.pending  # a counter left set on one path is left set there
    return State(env, frozenset(evicted), frozenset(freed), frozenset(pending), frozenset(zeroed), frozenset(at_zero))


def merge_results(out: Results) -> Results:
    """Past MAX_STATES results, one: the join of their values in the merge of their states."""
    if len(out) <= MAX_STATES:
        return out
    return [(Val.join_all([v for v, _ in out]), merge([s for _, s in out]))]


@dataclass
class Flow:
    """The states leaving a statement, by how they leave it."""

    normal: list[State] = field(default_factory=list)
    brk: list[State] = field(default_factory=list)
    cont: list[State] = field(default_factory=list)
    ret: list[State] = field(default_factory=list)
    exc: list[State] = field(default_factory=list)

    def add(self, other: Flow, normal: bool = True) -> None:
        if normal:
            self.normal += other.normal
        self.brk += other.brk
        self.cont += other.cont
        self.ret += other.ret
        self.exc += other.exc

    def each(self, change: Callable[[list[State]], list[State]]) -> Flow:
        return Flow(change(self.normal), change(self.brk), change(self.cont), change(self.ret), change(self.exc))


class Abandon(Exception):
    """The entry function is too costly to interpret: it gets no findings."""


def reset_pending(state: State, fields: set[str] | frozenset[str], concerns: Callable[[str], bool]) -> State | None:
    """The preempts still waiting for their counters to be reset, with `fields` now reset for
    the requests `concerns` picks (a preempt left with none to reset is dropped); None when it
    picks none of them."""
    if not any(concerns(k) for k, _, _ in state.pending):
        return None
    left = {(k, site, missing - fields if concerns(k) else missing) for k, site, missing in state.pending}
    return state.replace(pending=frozenset(p for p in left if p[2]))


def not_at_zero(state: State, key: str | None, field_name: str | None) -> State:
    """`field_name` (None: every counter) of request `key` (None: of any request) is no
    longer known to be 0."""
    kept = frozenset(
        z
        for z in state.at_zero
        # a request's counter set again: no longer 0 for every request ("*") either
        if (key is not None and z[0] not in (key, "*")) or (field_name is not None and z[1] != field_name)
    )
    return state if kept == state.at_zero else state.replace(at_zero=kept)


def without(state: State, name: str) -> State:
    if name not in state.env:
        return state
    return state.replace(env={n: v for n, v in state.env.items() if n != name})


def unbind(flow: Flow, name: str) -> Flow:
    return flow.each(lambda states: [without(s, name) for s in states])


def mark(state: State, gate: str | None, side: bool) -> State:
    if gate is None:
        return state
    return state.replace(evicted=state.evicted | {("#gate", f"{gate}:{side}")})


def gates(state: State) -> frozenset[str]:
    return frozenset(q for k, q in state.evicted if k == "#gate")


def covered(state: State) -> State:
    """`state` where every request's dirty tail counts as evicted: an eviction of every tail,
    or one the walk cannot rule out (an unknown value never produces a finding)."""
    return state.replace(evicted=state.evicted | {("*", "ok")})


def may_cover(evicted: str, freed: str) -> bool:
    """Whether an eviction for request key `evicted` may be for the requests freed under
    `freed`: the same request, every request, or one the walk cannot tell apart (a
    parameter, an item of a queue it cannot see into). One known other request
    (`running[0]`, another loop's request) or part of them does not count."""
    if evicted in (freed, "*"):
        return True
    if evicted == "partial" or evicted.startswith("at:"):
        return False
    if evicted.startswith(("q:", "p:")):
        return True
    return freed == "*" and evicted.startswith("it:")  # inside a per-request loop


# -- loops over the running requests ---------------------------------------------------
def retire(states: list[State], born: set[str]) -> list[State]:
    """Before the next iteration: the request of the previous one is another request
    (its frees do not empty the next one's blocks, its evictions do not cover it)."""
    if not born:
        return states

    def old(k: str) -> str:
        return k + "'" if k in born else k

    return [
        s.replace(
            evicted=frozenset((old(k), q) for k, q in s.evicted),
            freed=frozenset((old(k), site) for k, site in s.freed),
            pending=frozenset((old(k), site, m) for k, site, m in s.pending),
            zeroed=frozenset((old(k), f) for k, f in s.zeroed),
            at_zero=frozenset((old(k), f, by) for k, f, by in s.at_zero),
        )
        for s in states
    ]


def entry_tag(depth: int) -> str:
    """The name under which the paths into a loop at this depth are numbered."""
    return f"<entry{depth}>"


def tag_entries(states: list[State], depth: int) -> list[State]:
    """Each path into a loop, numbered (`promote` spreads an iteration's eviction only
    to the iterations of the same path: not to a path that never made it)."""
    tag = entry_tag(depth)
    return [s.bind(tag, Val.Entry(i)) for i, s in enumerate(states)]


def promote(states: list[State], keys: list[str], depth: int) -> list[State]:
    """After a loop over the running requests, what it did to "each request" it did
    to every running request ("*")."""
    tag = entry_tag(depth)
    if not keys:
        return [without(s, tag) for s in states]
    born = set(keys) | {k + "'" for k in keys}
    states = _gate_sides_kept_empty(states, born)
    # A loop that skips some requests for another reason than "no dirty tail" evicts
    # for only part of them.
    every = "partial" if any(skipped(st) for st in states) else "*"
    # An iteration may skip a request (no in-flight tokens, a null block): an eviction
    # some iteration does counts for the loop's every exit.
    # ... except across a gate (a test that is not about the dirty tail): only the
    # iterations on the same side of it.
    each: dict[tuple[frozenset[str], Val.Value], set[tuple[str, str]]] = {}
    for st in states:
        side = (gates(st), st.env.get(tag))
        each.setdefault(side, set()).update(
            (every if k in born else k, q) for k, q in st.evicted if k in born or k == "*"
        )

    def spread(k: str) -> str:
        return "*" if k in born else k

    # A counter every path of the body zeroes (`for req in reqs: req.num_in_flight_tokens = 0`)
    # is 0 for every request after the loop (only where no iteration skips a request).
    zero_sets = [{(f, by) for k, f, by in s.at_zero if k in born} for s in states]
    always = set.intersection(*zero_sets) if zero_sets and every == "*" else set()
    out = []
    for s in states:
        evicted = frozenset((every if k in born else k, q) for k, q in s.evicted if k not in ("#skip", "#gate"))
        out.append(
            s.replace(
                evicted=evicted | frozenset(each.get((gates(s), s.env.get(tag)), ())),
                freed=frozenset((spread(k), site) for k, site in s.freed),
                pending=frozenset((spread(k), site, m) for k, site, m in s.pending),
                zeroed=frozenset((spread(k), f) for k, f in s.zeroed),
                at_zero=frozenset(z for z in s.at_zero if z[0] not in born) | {("*", f, by) for f, by in always},
                env={n: _for_every(v, born, every) for n, v in s.env.items() if n != tag},
            )
        )
    return out


def _gate_sides_kept_empty(states: list[State], born: set[str]) -> list[State]:
    """`for req in reqs: if gate: skip = True; ...; if not skip: ids |= tail(req)`: on a path
    through a gate's side that left the accumulator as it was (empty), it holds the ids of
    part of the requests, not none (as a `continue` on that side would mark, see skip)."""
    added: dict[str, Val.Ids] = {}
    for st in states:
        for name, value in st.env.items():
            if isinstance(value, Val.Ids) and value.key in born:
                added.setdefault(name, value)
    if not added:
        return states
    out = []
    for st in states:
        kept = {n: Val.with_key(v, "partial") for n, v in added.items() if Val.is_empty_ids(st.env.get(n))}
        out.append(st.replace(env={**st.env, **kept}) if kept and gates(st) else st)
    return out


def _for_every(value: Val.Value, born: set[str], every: str) -> Val.Value:
    """A value made for the request of one iteration, as the loop leaves it: for `every`."""
    if isinstance(value, Val.Ids) and value.key in born:
        return Val.with_key(value, every)
    if isinstance(value, Val.Keyed) and isinstance(value.values, Val.Ids) and value.values.key in born:
        return Val.Keyed(Val.with_key(value.values, every))
    return value


def clear_skips(states: list[State], loop: int) -> list[State]:
    """A loop over something else than the running requests (blocks, groups) skips
    no request: its own skips (not those of another loop) are no skip."""
    mark = skip(loop)
    return [s.replace(evicted=s.evicted - {mark}) if mark in s.evicted else s for s in states]


def fill_accumulators(entry: list[State], exits: list[State]) -> list[State]:
    """After a loop over blocks or groups (walked as one iteration), a set of block ids that
    was empty on entry and that some exit holds ids in: an exit on which the iteration
    skipped the add (`if i < first: continue`) does not leave it empty at runtime, since
    the set holds what every iteration added. Its empty value takes the others' join
    (else evicting it would count as evicting everything, as `evict_blocks(set())` does)."""
    empty = {
        name
        for name, value in (entry[0].env.items() if entry else ())
        if Val.is_empty_ids(value) and all(Val.is_empty_ids(s.env.get(name)) for s in entry)
    }
    filled: dict[str, Val.Ids] = {}
    for state in exits:
        for name in empty:
            value = state.env.get(name)
            if isinstance(value, Val.Ids) and not Val.is_empty_ids(value):
                filled[name] = Val.join_ids(filled[name], value) if name in filled else value
    if not filled:
        return exits
    out = []
    for state in exits:
        stays = [n for n in filled if Val.is_empty_ids(state.env.get(n))]
        out.append(state.replace(env={**state.env, **{n: filled[n] for n in stays}}) if stays else state)
    return out
