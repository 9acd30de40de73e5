"""What the verifier reads from vLLM's scheduler, and only reads.

Every read is duck-typed and guarded: a field that is not there (another vLLM
version, a renamed attribute) is recorded in ``missing`` with the checks it
blocks, never raised.  No vLLM import happens here.

Reads never mutate: ``req_to_blocks`` is a ``defaultdict`` in vLLM, so it is
read with ``.get()`` (``[]`` would insert an entry); the prefix-cache map is
queried with ``contain``/``get`` only.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NamedTuple

ALL = ("FTR01", "FTR02", "FTR03", "FTR04", "FTR05")
BLOCKS = ("FTR01", "FTR02", "FTR05")  # the checks that classify blocks

_MISSING = object()

# Statuses of a request that sits in a waiting queue (vLLM's RequestStatus names).
WAITING_STATUSES = frozenset(
    {
        "WAITING",
        "PREEMPTED",
        "WAITING_FOR_FSM",
        "WAITING_FOR_REMOTE_KVS",
        "WAITING_FOR_STREAMING_REQ",
        "WAITING_FOR_STRUCTURED_OUTPUT_GRAMMAR",
    }
)


class Reader:
    """Guarded attribute access that remembers what was missing."""

    def __init__(self) -> None:
        self.missing: dict[str, set[str]] = {}

    def miss(self, name: str, codes: Iterable[str]) -> None:
        self.missing.setdefault(name, set()).update(codes)

    def get(self, obj: Any, attr: str, where: str, codes: Iterable[str]) -> Any:
        try:
            value = getattr(obj, attr)
        except Exception:  # noqa: BLE001 - AttributeError, or a property that raises
            self.miss(f"{where}.{attr}", codes)
            return _MISSING
        return value

    def opt(self, obj: Any, attr: str) -> Any:
        try:
            return getattr(obj, attr)
        except Exception:  # noqa: BLE001 - AttributeError, or a property that raises
            return _MISSING

    def int_(self, obj: Any, attr: str, where: str, codes: Iterable[str]) -> Any:
        value = self.get(obj, attr, where, codes)
        if value is _MISSING:
            return _MISSING
        if isinstance(value, bool) or not isinstance(value, int):
            self.miss(f"{where}.{attr} (not an int: {type(value).__name__})", codes)
            return _MISSING
        return value


def is_missing(value: Any) -> bool:
    return value is _MISSING


def hash_text(key: Any) -> str:
    """Short printable form of a block hash key (hash bytes + group id)."""
    if isinstance(key, (bytes, bytearray)):
        return bytes(key[:8]).hex()
    text = repr(key)
    return text if len(text) <= 24 else text[:21] + "..."


class CacheMap:
    """Read-only view of ``BlockPool.cached_block_hash_to_block``.

    0.34 has ``BlockHashToBlockMap.contain(key, block_id)``; older releases
    used a plain dict ``{key: {block_id: block}}`` or ``{key: block}``.
    """

    def __init__(self, pool: Any, reader: Reader) -> None:
        self.ok = False
        self._map = reader.get(pool, "cached_block_hash_to_block", "BlockPool", ("FTR01", "FTR02"))
        if is_missing(self._map):
            return
        self._contain = getattr(self._map, "contain", None)
        if self._contain is None and not isinstance(self._map, Mapping):
            reader.miss(
                f"BlockPool.cached_block_hash_to_block.contain (unknown map type {type(self._map).__name__})",
                ("FTR01", "FTR02"),
            )
            return
        self.ok = True
        secondary = reader.opt(pool, "cached_block_hashes_by_block")
        self.secondary: Mapping[int, Any] = secondary if isinstance(secondary, Mapping) else {}

    def contains(self, key: Any, block_id: int) -> bool:
        if self._contain is not None:
            return bool(self._contain(key, block_id))
        value = self._map.get(key)
        if value is None:
            return False
        if isinstance(value, Mapping):
            return block_id in value
        if isinstance(value, int):
            return value == block_id
        return getattr(value, "block_id", None) == block_id

    def keys_of(self, block_id: int, primary: Any) -> tuple[Any, ...]:
        extra = self.secondary.get(block_id, ())
        try:
            extra = tuple(extra)
        except TypeError:
            extra = ()
        return (primary, *(k for k in extra if k != primary))


class BlockRecord(NamedTuple):
    """One recorded block: a tuple (one per dirty or clean-cached block, made with
    ``tuple.__new__``: a dataclass per block cost more than the handler it watches)."""

    request_id: str
    group: int
    index: int  # type: ignore[assignment]  # the field shadows tuple.index (a public name, kept)
    block_id: int
    block: Any
    keys: tuple[Any, ...]
    block_size: int

    @property
    def hash_text(self) -> str:
        return hash_text(self.keys[0])

    @property
    def token_range(self) -> tuple[int, int]:
        return (self.index * self.block_size, (self.index + 1) * self.block_size)


_new_record = tuple.__new__


@dataclass
class ManagerRecord:
    group: int
    manager: Any
    block_size: int
    records_zeroing: bool


class RequestRecord(NamedTuple):
    request_id: str
    request: Any
    num_computed_tokens: Any
    num_in_flight_tokens: Any

    @property
    def confirmed(self) -> int:
        return self.num_computed_tokens - self.num_in_flight_tokens


@dataclass
class Snapshot:
    """The state recorded on entry to a fault handler."""

    scheduler: Any
    requests: list[RequestRecord] = field(default_factory=list)
    managers: list[ManagerRecord] = field(default_factory=list)
    dirty: list[BlockRecord] = field(default_factory=list)
    clean: list[BlockRecord] = field(default_factory=list)
    cache: CacheMap | None = None
    zeroing: bool = False
    reader: Reader = field(default_factory=Reader)
    seen: dict[int, set[int]] = field(default_factory=dict, repr=False)  # group -> block ids recorded

    @property
    def missing(self) -> dict[str, set[str]]:
        return self.reader.missing


def managers_of(scheduler: Any, reader: Reader) -> tuple[Any, list[Any]]:
    """(block_pool, [single-type manager per KV-cache group]) or missing."""
    kvm = reader.get(scheduler, "kv_cache_manager", "Scheduler", BLOCKS)
    if is_missing(kvm):
        return _MISSING, []
    coordinator = reader.get(kvm, "coordinator", "KVCacheManager", BLOCKS)
    managers: Any = _MISSING
    if not is_missing(coordinator):
        managers = reader.get(coordinator, "single_type_managers", "KVCacheCoordinator", BLOCKS)
    pool = reader.opt(kvm, "block_pool")
    if is_missing(pool) and not is_missing(coordinator):
        pool = reader.opt(coordinator, "block_pool")
    if is_missing(pool):
        reader.miss("KVCacheManager.block_pool", BLOCKS)
    if is_missing(managers):
        return pool, []
    try:
        return pool, list(managers)
    except TypeError:
        reader.miss("KVCacheCoordinator.single_type_managers (not iterable)", BLOCKS)
        return pool, []


def zeroing_required(scheduler: Any, reader: Reader, managers: list[Any]) -> bool:
    for owner, _where in ((scheduler, "Scheduler"),):
        flag = reader.opt(owner, "needs_kv_cache_zeroing")
        if not is_missing(flag):
            return bool(flag)
    kvm = reader.opt(scheduler, "kv_cache_manager")
    cfg = reader.opt(kvm, "kv_cache_config") if not is_missing(kvm) else _MISSING
    if not is_missing(cfg):
        flag = reader.opt(cfg, "needs_kv_cache_zeroing")
        if not is_missing(flag):
            return bool(flag)
    # No flag anywhere: if the zeroing machinery exists, the flag was renamed.
    if any(not is_missing(reader.opt(m, "new_block_ids")) for m in managers):
        reader.miss("Scheduler.needs_kv_cache_zeroing", ("FTR05",))
    return False


@contextmanager
def gc_paused():
    """The cyclic GC off while the verifier records or checks (thousands of small tuples
    would trigger collections that walk all of vLLM's and torch's objects: more than the
    reads themselves at 1,000 requests); back on, if it was, afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def take_snapshot(scheduler: Any) -> Snapshot:
    """Record, for every running request and KV-cache group, which blocks are
    dirty (index >= confirmed // block_size, not null, hashed) and which are
    clean and cached (index < confirmed // block_size, hashed, in the map)."""
    with gc_paused():
        return _take_snapshot(scheduler)


def _take_snapshot(scheduler: Any) -> Snapshot:
    snap = Snapshot(scheduler=scheduler)
    r = snap.reader
    running = r.get(scheduler, "running", "Scheduler", ALL)
    if is_missing(running):
        return snap
    running = list(running)
    pool, managers = managers_of(scheduler, r)
    if not is_missing(pool):
        snap.cache = CacheMap(pool, r)
    snap.zeroing = zeroing_required(scheduler, r, managers)

    for group, mgr in enumerate(managers):
        gid = r.opt(mgr, "kv_cache_group_id")
        group_id = gid if isinstance(gid, int) else group
        bs = r.int_(mgr, "block_size", "SingleTypeKVCacheManager", BLOCKS)
        rec = r.opt(mgr, "records_new_block_ids")
        if is_missing(rec):
            rec = r.opt(mgr, "_record_new_block_ids")
        records = True if is_missing(rec) else bool(rec)
        if not is_missing(bs) and bs > 0:
            snap.managers.append(ManagerRecord(group_id, mgr, bs, records))
    if snap.zeroing:
        for m in snap.managers:
            if m.records_zeroing and is_missing(r.opt(m.manager, "new_block_ids")):
                r.miss("SingleTypeKVCacheManager.new_block_ids", ("FTR05",))

    cache = snap.cache
    cache_ok = cache is not None and cache.ok
    if cache is not None and cache_ok:
        secondary = cache.secondary
        contains = cache._contain or cache.contains  # vLLM's own method when it has one (truthy alike)
    plan: list[tuple] | None = None  # per group: (manager, req_to_blocks.get, ids seen, group, block size)
    requests = snap.requests
    for request in running:
        try:  # the usual case in one go; anything odd is read again, guarded
            rid = request.request_id
            computed = request.num_computed_tokens
            in_flight = request.num_in_flight_tokens
            plain = type(computed) is int and type(in_flight) is int
        except Exception:  # noqa: BLE001 - anything odd is read again, guarded
            plain = False
        if not plain:
            rid = r.get(request, "request_id", "Request", ALL)
            if is_missing(rid):
                continue
            computed = r.int_(request, "num_computed_tokens", "Request", BLOCKS)
            in_flight = r.int_(request, "num_in_flight_tokens", "Request", BLOCKS)
        rid = str(rid)
        rr = _new_record(RequestRecord, (rid, request, computed, in_flight))
        requests.append(rr)
        if cache is None or not cache_ok or is_missing(computed) or is_missing(in_flight):
            continue
        confirmed = max(computed - in_flight, 0)
        if plan is None:
            plan = []
            for m in snap.managers:
                getter = _blocks_getter(r, m)
                if getter is not None:
                    plan.append((m, getter, snap.seen.setdefault(m.group, set()), m.group, m.block_size))
        # The request's dirty tail (index >= confirmed // block_size, not null, hashed) and
        # its clean prefix blocks that are in the prefix cache, each block once per group,
        # in plain reads; a block with a missing or odd field makes the guarded loop redo
        # this request and group, so it reports what is missing exactly as before.
        for m, getter, seen, group, block_size in plan:
            blocks = getter(rid)  # .get(): never insert into the defaultdict
            if not blocks:
                continue
            boundary = confirmed // block_size
            dirty: list[BlockRecord] = []
            clean: list[BlockRecord] = []
            mine: set[int] = set()
            try:
                for index, block in enumerate(blocks):
                    is_null = block.is_null
                    key = block.block_hash
                    block_id = block.block_id
                    if type(block_id) is not int:
                        raise _Odd
                    if is_null or key is None or block_id in seen or block_id in mine:
                        continue
                    extra = secondary.get(block_id) if secondary else None
                    keys = cache.keys_of(block_id, key) if extra else (key,)
                    if index >= boundary:
                        dirty.append(_new_record(BlockRecord, (rid, group, index, block_id, block, keys, block_size)))
                        mine.add(block_id)
                    elif any(contains(k, block_id) for k in keys) if extra else contains(key, block_id):
                        clean.append(_new_record(BlockRecord, (rid, group, index, block_id, block, keys, block_size)))
                        mine.add(block_id)
            except Exception:  # noqa: BLE001 - a missing field (or a property that raises), an odd type
                _record_blocks_guarded(snap, rr, m, blocks, boundary)
                continue
            if mine:
                seen |= mine
                if dirty:
                    snap.dirty += dirty
                if clean:
                    snap.clean += clean
    return snap


def _blocks_getter(r: Reader, m: ManagerRecord) -> Any:
    """``req_to_blocks.get`` of one manager (``.get()``: never insert into the defaultdict)."""
    req_to_blocks = r.get(m.manager, "req_to_blocks", "SingleTypeKVCacheManager", BLOCKS)
    if is_missing(req_to_blocks):
        return None
    getter = getattr(req_to_blocks, "get", None)
    if getter is None:
        r.miss("SingleTypeKVCacheManager.req_to_blocks.get", BLOCKS)
    return getter


class _Odd(Exception):
    """A block the fast loop cannot read plainly: read the request's blocks again, guarded."""


def _record_blocks_guarded(snap: Snapshot, rr: RequestRecord, m: ManagerRecord, blocks: Any, boundary: int) -> None:
    r = snap.reader
    cache = snap.cache
    assert cache is not None
    seen = snap.seen.setdefault(m.group, set())
    for index, block in enumerate(blocks):
        is_null = r.get(block, "is_null", "KVCacheBlock", BLOCKS)
        key = r.get(block, "block_hash", "KVCacheBlock", BLOCKS)
        block_id = r.int_(block, "block_id", "KVCacheBlock", BLOCKS)
        if is_missing(is_null) or is_missing(key) or is_missing(block_id):
            return
        if is_null or key is None:
            continue
        if block_id in seen:  # shared by several requests: count it once
            continue
        keys = cache.keys_of(block_id, key)
        rec = _new_record(BlockRecord, (rr.request_id, m.group, index, block_id, block, keys, m.block_size))
        if index >= boundary:
            seen.add(block_id)
            snap.dirty.append(rec)
        elif any(cache.contains(k, block_id) for k in keys):
            seen.add(block_id)
            snap.clean.append(rec)
