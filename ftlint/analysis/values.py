"""Abstract values: what an expression of fault-path code denotes, one named type per kind.

Values are frozen, hashable records (a path's store is compared and deduplicated by
them); None is "unknown". A request is identified by a *key*: the place it was bound
(an iteration over `scheduler.running`, a `running.pop()`, a parameter), so a counter
reset counts only on the request that was preempted, whatever its name. Two values of
different kinds are never equal, even with equal fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias, TypeGuard

if TYPE_CHECKING:
    import libcst as cst

    from ftlint.index.project import ClassInfo, Function

# Token / block quantities: the confirmed boundary is computed - inflight; block
# indices are token counts // block_size.
NUM_KINDS = (
    "computed",
    "inflight",
    "confirmed",
    "rem",
    "bs",
    "cblk",
    "kblk",
    "early",
    "zero",
    "other",
    "cceil",
    "cratio",
    "cpad",
)
# "cratio": the confirmed boundary divided by the block size exactly (`confirmed / block_size`)
# "cpad": the confirmed boundary plus the block size (less one): `// block_size` rounds it up
# "cceil": the confirmed boundary divided by the block size rounding up (`cdiv(confirmed,
# block_size)`, `-(-confirmed // block_size)`): past the block the dirty tail begins in when the
# boundary is not block-aligned; "neg-confirmed", "neg-cceil": their negations on the way

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


# -- the scheduler's state ----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Running:
    """`scheduler.running`, or a copy / filtered copy of it; `some`: a part of it that leaves a
    request out whatever the requests are (`running[:-1]`, `running[1:]`)."""

    some: bool = False


@dataclass(frozen=True, slots=True)
class Req:
    """One running request; `original`: the request a copy (`copy.copy(req)`) was made of:
    another object, the same request id and blocks."""

    key: str
    original: str | None = None


@dataclass(frozen=True, slots=True)
class Rid:
    """A request's request_id."""

    key: str | None


@dataclass(frozen=True, slots=True)
class Num:
    """A token / block count of a kind in NUM_KINDS (or `count-<kind>`: the blocks from a
    position of that kind to the end, `early-token`: a token position before the boundary)."""

    kind: str


@dataclass(frozen=True, slots=True)
class Ids:
    """Block ids (or blocks) of request `key` ("*": of every request / the pool): from which
    position (START_ORDER), in which KV-cache groups ("all" | "first"), read after the request
    was freed (stale: empty), made in function `origin`."""

    key: str | None
    start: str
    groups: str = "all"
    stale: bool = False
    origin: Function | None = None


@dataclass(frozen=True, slots=True)
class BlockMap:
    """`req_to_blocks` of one KV-cache group's manager ("first") or of each ("all")."""

    groups: str


@dataclass(frozen=True, slots=True)
class Managers:
    """`coordinator.single_type_managers`."""


@dataclass(frozen=True, slots=True)
class Manager:
    """One of the single-type managers ("first": `[0]`) or each of them ("all")."""

    groups: str


@dataclass(frozen=True, slots=True)
class Pool:
    """The block pool."""


@dataclass(frozen=True, slots=True)
class Index:
    """An index over the positions of a block list (or of the managers), from `start`."""

    of: Value
    start: str


@dataclass(frozen=True, slots=True)
class Enumerated:
    of: Value


@dataclass(frozen=True, slots=True)
class Zipped:
    """`zip(a, b, ...)`: its element is the tuple of theirs."""

    parts: tuple[Value, ...]


@dataclass(frozen=True, slots=True)
class Range:
    """`range(start, stop)`: where it starts (START_ORDER), what it stops at."""

    start: str
    stop: Value


@dataclass(frozen=True, slots=True)
class SliceOf:
    """`slice(start, stop)`: an object that slices where it is used as an index."""

    lower: Value
    upper: Value
    has_lower: bool


@dataclass(frozen=True, slots=True)
class Length:
    of: Value


# -- callables ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Primitive:
    """A vLLM primitive, bound (`p = sched._preempt_request`) or named."""

    name: str


@dataclass(frozen=True, slots=True)
class FunctionRef:
    """A project function, bound to an instance (`self.m`) or not."""

    fn: Function
    via_instance: bool
    #: the record it is a method of (its `self`), when the walk knows its fields
    receiver: Instance | None = None
    #: a nested function's free names as bound where it was defined (its closure)
    closure: tuple[tuple[str, Value], ...] = ()


@dataclass(frozen=True, slots=True)
class Instance:
    """An object of a project class made in the walk (`TailEvictor(kv)`): its methods are
    the class's; `fields`: a record's fields as its constructor filled them (a dataclass's,
    a NamedTuple's), other attributes as its `__init__` sets them (walk.shapes); `oid`: for
    an object of another class made in the walk, where it was made: its attributes live in
    the state (walk.state.HEAP), set by its `__init__` and its methods, read by all."""

    cls: ClassInfo
    fields: tuple[tuple[str, Value], ...] = ()
    oid: str = ""


@dataclass(frozen=True, slots=True)
class Partial:
    """`functools.partial(callee, *args, **keywords)`."""

    callee: Value
    args: tuple[Value, ...]
    keywords: tuple[tuple[str, Value], ...]


@dataclass(frozen=True, slots=True)
class MethodCaller:
    """`operator.methodcaller(name, *args, **keywords)`."""

    name: str
    args: tuple[Value, ...]
    keywords: tuple[tuple[str, Value], ...]


@dataclass(frozen=True, slots=True)
class ItemOf:
    """`operator.itemgetter(index)`: called on a value, its item at `index`."""

    index: int


@dataclass(frozen=True, slots=True)
class Lambda:
    """A lambda and the names bound where it was made (its closure)."""

    node: cst.Lambda
    closure: tuple[tuple[str, Value], ...]


@dataclass(frozen=True, slots=True)
class Either:
    """One of these callables, picked at run time (a table indexed by a computed key)."""

    options: tuple[Value, ...]


# -- containers and literals -----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Table:
    """A dict with constant keys (a method table, keyword arguments)."""

    items: tuple[tuple[str | bool, Value], ...]


@dataclass(frozen=True, slots=True)
class Keyed:
    """A dict filled under keys the walk cannot compute (`by_req[req.request_id] = ids`):
    what any of its values may be (the join of every value stored)."""

    values: Value


@dataclass(frozen=True, slots=True)
class TableItems:
    """`table.items()`."""

    items: tuple[tuple[str | bool, Value], ...]


@dataclass(frozen=True, slots=True)
class Seq:
    """A tuple / list of non-block values."""

    items: tuple[Value, ...]


@dataclass(frozen=True, slots=True)
class Each:
    """The element a comprehension made for each request of its loop (`(r, boundary)`),
    with the request keys the loop bound (`born`), renamed for the request of a later loop."""

    template: Value
    born: tuple[str, ...]
    some: bool = False  # made for part of the running requests (see Running.some)


@dataclass(frozen=True, slots=True)
class PerRequest:
    """A dict a comprehension made with one entry per request (`{r.request_id: boundary for
    r in reqs}`): `entry` is the (key, value) made for each."""

    entry: Each


@dataclass(frozen=True, slots=True)
class Fields:
    """`vars(obj)` / `obj.__dict__`."""

    of: Value


@dataclass(frozen=True, slots=True)
class Str:
    text: str


@dataclass(frozen=True, slots=True)
class Strs:
    """One of these strings (the loop variable over a tuple of names)."""

    texts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Bool:
    flag: bool


@dataclass(frozen=True, slots=True)
class Member:
    """`Phase.SCAN`: a member of a project enum (`enum_qualname.name`); two are the same
    object exactly when their names are equal. `text`: its value when a string literal."""

    name: str
    text: str | None = None


@dataclass(frozen=True, slots=True)
class TailTest:
    """A comparison of a request's token counts that holds exactly when it has no dirty
    tail (`clean`: `confirmed >= computed`, `in_flight == 0`) or exactly when it has one."""

    clean: bool


@dataclass(frozen=True, slots=True)
class NoneValue:
    pass


@dataclass(frozen=True, slots=True)
class Param:
    """A parameter of the entry function, unknown but the same object throughout."""

    name: str


@dataclass(frozen=True, slots=True)
class Zeros:
    """An array or list every item of which is 0 (`np.zeros(n)`, `[0] * n`): counters to reset."""


# -- the walk's own markers -------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Frame:
    """The names of a `@contextmanager`'s frame between its entry and its exit."""

    env: tuple[tuple[str, Value], ...]


@dataclass(frozen=True, slots=True)
class Entry:
    """The number of a path into a loop."""

    index: int


Value: TypeAlias = (
    Running
    | Req
    | Rid
    | Num
    | Ids
    | BlockMap
    | Managers
    | Manager
    | Pool
    | Index
    | Enumerated
    | Zipped
    | Range
    | SliceOf
    | Length
    | Primitive
    | FunctionRef
    | Instance
    | Partial
    | MethodCaller
    | ItemOf
    | Lambda
    | Either
    | Table
    | Keyed
    | TableItems
    | Seq
    | Zeros
    | Each
    | PerRequest
    | Fields
    | Str
    | Strs
    | Bool
    | Member
    | TailTest
    | NoneValue
    | Param
    | Frame
    | Entry
    | None
)

#: the key prefix of a table entry whose key the walk cannot compute (`{Mode.ABORT: ...}`)
UNKNOWN_KEY = "\x00key"
MEMBER_KEY = "\x01"
RUNNING = Running()
SOME_RUNNING = Running(some=True)
NONE = NoneValue()
TRUE = Bool(True)
FALSE = Bool(False)
ZERO = Num("zero")
OTHER = Num("other")
MANAGERS = Managers()
POOL = Pool()
#: the values a call may be made on
CALLABLE = (FunctionRef, Primitive, Partial, Lambda, MethodCaller, ItemOf, Either)


def some_of(value: Value) -> bool:
    """Whether a collection of requests (or what a loop over one made) holds only part of the
    running requests (see Running.some)."""
    if isinstance(value, (Running, Each)):
        return value.some
    if isinstance(value, PerRequest):
        return value.entry.some
    if isinstance(value, Zipped):
        return any(some_of(part) for part in value.parts)
    return False


def ids(key: str | None, start: str, groups: str = "all", stale: bool = False, origin: Function | None = None) -> Ids:
    return Ids(key, start, groups, stale, origin)


def is_ids(value: Value) -> TypeGuard[Ids]:
    return isinstance(value, Ids)


def is_empty_ids(value: Value) -> bool:
    """Block ids known to be none (`set()` before anything was added)."""
    return isinstance(value, Ids) and value.start == "empty"


def num_kind(value: Value) -> str | None:
    """The kind of a number, None for anything else."""
    return value.kind if isinstance(value, Num) else None


def key_of(value: Value) -> str | None:
    """The request a value stands for (a request, its id, a parameter), or None."""
    if isinstance(value, (Req, Rid)):
        return value.key
    if isinstance(value, Param):
        return "p:" + value.name
    return None


def identity(request: Value) -> str | None:
    """The request whose blocks a request value reads: a copy's original (same request id)."""
    if isinstance(request, Req) and request.original is not None:
        return request.original
    return key_of(request)


def with_start(value: Ids, start: str) -> Ids:
    return Ids(value.key, start, value.groups, value.stale, value.origin)


def with_key(value: Ids, key: str | None) -> Ids:
    return Ids(key, value.start, value.groups, value.stale, value.origin)


def join_ids(a: Ids, b: Ids) -> Ids:
    if a.start == "empty":
        return b
    if b.start == "empty":
        return a
    key = a.key if a.key == b.key else "*"
    start = a.start if _RANK[a.start] <= _RANK[b.start] else b.start
    groups = "all" if "all" in (a.groups, b.groups) else "first"
    return Ids(key, start, groups, a.stale and b.stale, a.origin or b.origin)


def join(a: Value, b: Value) -> Value:
    """The value of an expression that is `a` on one path and `b` on another."""
    if a == b:
        return a
    if isinstance(a, Ids) and isinstance(b, Ids):
        return join_ids(a, b)
    if isinstance(a, Keyed) and isinstance(b, Keyed):
        return Keyed(join(a.values, b.values))
    return None


def join_all(values: list[Value]) -> Value:
    """The join of one or more values."""
    joined = values[0]
    for value in values[1:]:
        joined = join(joined, value)
    return joined


def start_from_index(kind: str | None) -> str:
    """Where a slice / index filter starting at a number of this kind begins."""
    return {"zero": "whole", "cblk": "tail", "kblk": "late", "cceil": "late", "early": "early"}.get(
        kind or "", "unknown"
    )


def is_callable(value: Value) -> bool:
    return isinstance(value, CALLABLE)


#: (left kind, right kind) -> {comparison: whether it holds exactly for a clean request}
_TAIL_TESTS: dict[tuple[str, str], dict[str, bool]] = {
    ("inflight", "zero"): {"==": True, "<=": True, ">": False, "!=": False},
    ("zero", "inflight"): {"==": True, ">=": True, "<": False, "!=": False},
    ("confirmed", "computed"): {">=": True, "==": True, "<": False, "!=": False},
    ("computed", "confirmed"): {"<=": True, "==": True, ">": False, "!=": False},
}


def tail_test(left: Value, operator: str, right: Value) -> TailTest | None:
    """`left <operator> right` as a test of a request's dirty tail, or None."""
    kinds = (num_kind(left) or "", num_kind(right) or "")
    clean = _TAIL_TESTS.get(kinds, {}).get(operator)
    return TailTest(clean) if clean is not None else None


#: token counts and the block a count falls in: never below 0
_NEVER_NEGATIVE = frozenset({"confirmed", "computed", "inflight", "cblk"})


def sign_test(left: Value, operator: str, right: Value) -> Bool | None:
    """`confirmed < 0` (`0 > confirmed`) is false, `confirmed >= 0` true: a clamp's branch
    that never runs; None for another comparison."""
    if num_kind(right) == "zero" and num_kind(left) in _NEVER_NEGATIVE:
        holds = {"<": False, ">=": True}.get(operator)
    elif num_kind(left) == "zero" and num_kind(right) in _NEVER_NEGATIVE:
        holds = {">": False, "<=": True}.get(operator)
    else:
        holds = None
    return Bool(holds) if holds is not None else None


def truth(value: Value) -> bool | None:
    """What `if value:` takes: True, False, or None (either)."""
    if value == TRUE:
        return True
    if value in (FALSE, NONE, ZERO):
        return False
    return None


def quality(value: Ids) -> str:
    """How well an eviction of these block ids covers the request's dirty tail."""
    if value.start in ("late", "head", "dropped"):
        return value.start
    if value.start in ("lhead", "ehead"):
        return "head"
    return "first-group" if value.groups == "first" else "ok"


def difference(left: Ids, right: Ids) -> Ids:
    """`all - prefix`: every block of a request minus its clean prefix (`blocks[:first]`)
    is the unconfirmed tail; minus anything else, where it starts is unknown (not broad)."""
    if right.start == "empty" or left.start == "empty":
        return left
    if left.start != "whole":
        return left
    after = {"head": "tail", "ehead": "early", "lhead": "late"}  # minus a prefix ending at /
    return with_start(left, after.get(right.start, "unknown"))  # before / inside the tail


def negated(value: Value) -> Value:
    """`-n` where n counts the blocks from a position to the end: `blocks[-n:]` starts there
    (`blocks[-0:]` is every block: a slice written so is guarded by `if n > 0`)."""
    if isinstance(value, Num) and value.kind in ("count-cblk", "count-early", "count-kblk"):
        return Num(value.kind[len("count-") :])
    if isinstance(value, Num) and value.kind in ("confirmed", "neg-cceil"):  # `-(-confirmed // bs)`
        return Num({"confirmed": "neg-confirmed", "neg-cceil": "cceil"}[value.kind])
    return None


def mentions(value: Value, keys: list[str] | tuple[str, ...]) -> bool:
    """Whether a (tuple) value holds a request, or its block ids, of one of these keys."""
    if isinstance(value, (Req, Ids, Rid)):
        return value.key in keys
    if isinstance(value, Seq):
        return any(mentions(part, keys) for part in value.items)
    if isinstance(value, Instance):  # a record holding a request's id or boundary
        return any(mentions(part, keys) for _, part in value.fields)
    return False


def rekey(value: Value, old: str, new: str) -> Value:
    """`value` with request `old` (and its block ids) replaced by request `new`."""
    if isinstance(value, Req) and value.key == old:
        return Req(new, value.original)
    if isinstance(value, Rid) and value.key == old:
        return Rid(new)
    if isinstance(value, Ids) and value.key == old:
        return with_key(value, new)
    if isinstance(value, Seq):
        return Seq(tuple(rekey(part, old, new) for part in value.items))
    if isinstance(value, Instance):
        return Instance(value.cls, tuple((name, rekey(part, old, new)) for name, part in value.fields))
    return value


def constant(value: Value) -> str | bool | None:
    """The key a string, bool or enum member is in a table (a dict with constant keys)."""
    if isinstance(value, Str):
        return value.text
    if isinstance(value, Bool):
        return value.flag
    if isinstance(value, Member):
        return f"{MEMBER_KEY}{value.name}"  # no string a handler writes begins so
    return None
