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
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ftlint.core import vocabulary as V

ALL = ("FTR01", "FTR02", "FTR03", "FTR04", "FTR05")
BLOCKS = ("FTR01", "FTR02", "FTR05")  # the checks that classify blocks

_MISSING = object()


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
    if type(key) is bytes:  # vLLM's keys: the usual case, a quarter of the general one's cost
        return key[:8].hex()
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
        self._pool = pool
        self._map = reader.get(pool, V.CACHED_BLOCK_MAP, "BlockPool", ("FTR01", "FTR02"))
        if is_missing(self._map):
            return
        self._contain = getattr(self._map, V.CACHE_MAP_CONTAIN, None)
        if self._contain is None and not isinstance(self._map, Mapping):
            reader.miss(
                f"BlockPool.{V.CACHED_BLOCK_MAP}.{V.CACHE_MAP_CONTAIN} (unknown map type {type(self._map).__name__})",
                ("FTR01", "FTR02"),
            )
            return
        self.ok = True
        secondary = reader.opt(pool, V.SECONDARY_HASHES)
        self.secondary: Mapping[int, Any] = secondary if isinstance(secondary, Mapping) else {}

    def current(self, reader: Reader) -> CacheMap:
        """The view of the map the pool holds now: a handler may replace it rather than
        clear it (vLLM 0.26's ``BlockPool.reset_prefix_cache`` binds a new
        ``BlockHashToBlockMap``), and the old one still holds every hash."""
        if getattr(self._pool, V.CACHED_BLOCK_MAP, None) is self._map:
            return self
        return CacheMap(self._pool, reader)

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
        return getattr(value, V.BLOCK_ID_ATTR, None) == block_id

    def keys_of(self, block_id: int, primary: Any) -> tuple[Any, ...]:
        extra = self.secondary.get(block_id, ())
        try:
            extra = tuple(extra)
        except TypeError:
            extra = ()
        return (primary, *(k for k in extra if k != primary))


class BlockRecord(NamedTuple):
    """The layout of one recorded block.  The snapshot keeps each block as a plain tuple
    in this order (one per dirty or clean-cached block: a NamedTuple or dataclass per
    block cost more than the handler it watches); :meth:`of` names the fields of one."""

    request_id: str
    group: int
    index: int  # type: ignore[assignment]  # the field shadows tuple.index (a public name, kept)
    block_id: int
    block: Any
    key: Any  # the block's hash key on entry (its secondary keys: Snapshot.extra_keys)
    block_size: int

    @classmethod
    def of(cls, rec: tuple[Any, ...]) -> BlockRecord:
        return tuple.__new__(cls, rec)

    @property
    def hash_text(self) -> str:
        return hash_text(self.key)

    @property
    def token_range(self) -> tuple[int, int]:
        return (self.index * self.block_size, (self.index + 1) * self.block_size)


@dataclass
class ManagerRecord:
    group: int
    manager: Any
    block_size: int
    records_zeroing: bool


@dataclass
class Snapshot:
    """The state recorded on entry to a fault handler.

    ``request_ids``/``request_objs``: the running requests (readable ones), in order.
    ``dirty``/``clean``: one plain tuple per block, laid out as :class:`BlockRecord`.
    ``extra_keys``: ``(group, block_id) -> (key, *secondary keys)`` for the recorded blocks
    that have secondary hash keys (none in the usual case).
    """

    scheduler: Any
    request_ids: list[str] = field(default_factory=list)
    request_objs: list[Any] = field(default_factory=list)
    managers: list[ManagerRecord] = field(default_factory=list)
    dirty: list[tuple[Any, ...]] = field(default_factory=list)
    clean: list[tuple[Any, ...]] = field(default_factory=list)
    extra_keys: dict[tuple[int, int], tuple[Any, ...]] = field(default_factory=dict)
    cache: CacheMap | None = None
    zeroing: bool = False
    reader: Reader = field(default_factory=Reader)
    seen: dict[int, set[int]] = field(default_factory=dict, repr=False)  # group -> block ids recorded

    @property
    def missing(self) -> dict[str, set[str]]:
        return self.reader.missing

    def keys_of(self, group: int, block_id: int, key: Any) -> tuple[Any, ...]:
        """Every hash key recorded for a block (its primary key first)."""
        extra = self.extra_keys
        return extra.get((group, block_id), (key,)) if extra else (key,)


def managers_of(scheduler: Any, reader: Reader) -> tuple[Any, list[Any]]:
    """(block_pool, [single-type manager per KV-cache group]) or missing."""
    kvm = reader.get(scheduler, V.SCHEDULER_KV_CACHE_MANAGER, "Scheduler", BLOCKS)
    if is_missing(kvm):
        return _MISSING, []
    coordinator = reader.get(kvm, V.KV_COORDINATOR, "KVCacheManager", BLOCKS)
    managers: Any = _MISSING
    if not is_missing(coordinator):
        managers = reader.get(coordinator, V.SINGLE_TYPE_MANAGERS, "KVCacheCoordinator", BLOCKS)
    pool = reader.opt(kvm, V.BLOCK_POOL)
    if is_missing(pool) and not is_missing(coordinator):
        pool = reader.opt(coordinator, V.BLOCK_POOL)
    if is_missing(pool):
        reader.miss(f"KVCacheManager.{V.BLOCK_POOL}", BLOCKS)
    if is_missing(managers):
        return pool, []
    try:
        return pool, list(managers)
    except TypeError:
        reader.miss(f"KVCacheCoordinator.{V.SINGLE_TYPE_MANAGERS} (not iterable)", BLOCKS)
        return pool, []


def zeroing_required(scheduler: Any, reader: Reader, managers: list[Any]) -> bool:
    flag = reader.opt(scheduler, V.NEEDS_KV_CACHE_ZEROING)
    if not is_missing(flag):
        return bool(flag)
    kvm = reader.opt(scheduler, V.SCHEDULER_KV_CACHE_MANAGER)
    cfg = reader.opt(kvm, V.KV_CACHE_CONFIG) if not is_missing(kvm) else _MISSING
    if not is_missing(cfg):
        flag = reader.opt(cfg, V.NEEDS_KV_CACHE_ZEROING)
        if not is_missing(flag):
            return bool(flag)
    # No flag anywhere: if the zeroing machinery exists, the flag was renamed.
    if any(not is_missing(reader.opt(m, V.NEW_BLOCK_IDS)) for m in managers):
        reader.miss(f"Scheduler.{V.NEEDS_KV_CACHE_ZEROING}", ("FTR05",))
    return False


@contextmanager
def gc_paused() -> Iterator[None]:
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
    running = r.get(scheduler, V.SCHEDULER_RUNNING, "Scheduler", ALL)
    if is_missing(running):
        return snap
    running = list(running)
    pool, managers = managers_of(scheduler, r)
    if not is_missing(pool):
        snap.cache = CacheMap(pool, r)
    snap.zeroing = zeroing_required(scheduler, r, managers)
    _read_managers(snap, managers)
    _read_requests(snap, running)
    return snap


def _read_managers(snap: Snapshot, managers: Any) -> None:
    r = snap.reader
    for group, mgr in enumerate(managers):
        gid = r.opt(mgr, V.KV_CACHE_GROUP_ID)
        group_id = gid if isinstance(gid, int) else group
        bs = r.int_(mgr, V.MANAGER_BLOCK_SIZE, "SingleTypeKVCacheManager", BLOCKS)
        rec = _MISSING
        for name in V.RECORDS_NEW_BLOCK_IDS:
            rec = r.opt(mgr, name)
            if not is_missing(rec):
                break
        records = True if is_missing(rec) else bool(rec)
        if not is_missing(bs) and bs > 0:
            snap.managers.append(ManagerRecord(group_id, mgr, bs, records))
    if snap.zeroing:
        for m in snap.managers:
            if m.records_zeroing and is_missing(r.opt(m.manager, V.NEW_BLOCK_IDS)):
                r.miss(f"SingleTypeKVCacheManager.{V.NEW_BLOCK_IDS}", ("FTR05",))


def _read_request(r: Any, request: Any) -> tuple[Any, Any, Any, bool] | None:
    """(request id, computed, in flight, read plainly), or None without an id."""
    # The fast path reads the vocabulary's TAIL_BOUNDARY and REQUEST_ID as plain
    # attributes; anything odd is read again through the guarded reads.
    try:
        rid = request.request_id
        computed = request.num_computed_tokens
        in_flight = request.num_in_flight_tokens
        plain = type(computed) is int and type(in_flight) is int
    except Exception:  # noqa: BLE001 - anything odd is read again, guarded
        plain = False
    if not plain:
        rid = r.get(request, V.REQUEST_ID, "Request", ALL)
        if is_missing(rid):
            return None
        computed = r.int_(request, V.TAIL_BOUNDARY[0], "Request", BLOCKS)
        in_flight = r.int_(request, V.TAIL_BOUNDARY[1], "Request", BLOCKS)
    if type(rid) is not str:
        rid = str(rid)
    return rid, computed, in_flight, plain


def _read_requests(snap: Snapshot, running: list[Any]) -> None:
    r = snap.reader
    cache = snap.cache
    cache_ok = cache is not None and cache.ok
    lookups: tuple[Any, Any, Any] = (None, None, None)
    if cache is not None and cache_ok:
        # vLLM's own contains method when it has one (truthy alike)
        lookups = (cache.secondary, cache.keys_of, cache._contain or cache.contains)
    plan: list[tuple[Any, ...]] | None = None  # per group: (manager, req_to_blocks.get, ids seen, group, block size)
    ids_append, objs_append = snap.request_ids.append, snap.request_objs.append
    for request in running:
        read = _read_request(r, request)
        if read is None:
            continue
        rid, computed, in_flight, plain = read
        ids_append(rid)
        objs_append(request)
        if not cache_ok or (not plain and (is_missing(computed) or is_missing(in_flight))):
            continue
        confirmed = computed - in_flight
        if confirmed < 0:
            confirmed = 0
        if plan is None:
            plan = []
            for m in snap.managers:
                getter = _blocks_getter(r, m)
                if getter is not None:
                    plan.append((m, getter, snap.seen.setdefault(m.group, set()), m.group, m.block_size))
        _record_blocks_fast(snap, rid, plan, confirmed, lookups)


def _record_blocks_fast(
    snap: Snapshot, rid: str, plan: list[tuple[Any, ...]], confirmed: int, lookups: tuple[Any, Any, Any]
) -> None:
    # The request's dirty tail (index >= confirmed // block_size, not null, hashed) and
    # its clean prefix blocks that are in the prefix cache, each block once per group,
    # in plain reads (the vocabulary's BLOCK_IS_NULL, BLOCK_HASH_ATTR, BLOCK_ID_ATTR); a
    # block with a missing or odd field undoes this request and group's records and
    # the guarded loop redoes them, so it reports what is missing exactly as before.
    secondary, keys_of, contains = lookups
    dirty, clean, extra_keys = snap.dirty, snap.clean, snap.extra_keys
    d_append, c_append = dirty.append, clean.append
    for m, getter, seen, group, block_size in plan:
        blocks = getter(rid)  # .get(): never insert into the defaultdict
        if not blocks:
            continue
        boundary = confirmed // block_size
        nd, nc = len(dirty), len(clean)
        try:
            for index, block in enumerate(blocks):
                is_null = block.is_null
                key = block.block_hash
                block_id = block.block_id
                if type(block_id) is not int:
                    raise _Odd
                if is_null or key is None or block_id in seen:
                    continue
                if secondary and secondary.get(block_id):
                    keys = keys_of(block_id, key)
                    if index >= boundary or any(contains(k, block_id) for k in keys):
                        (d_append if index >= boundary else c_append)(
                            (rid, group, index, block_id, block, key, block_size)
                        )
                        seen.add(block_id)
                        if len(keys) > 1:
                            extra_keys[(group, block_id)] = keys
                elif index >= boundary:
                    d_append((rid, group, index, block_id, block, key, block_size))
                    seen.add(block_id)
                elif contains(key, block_id):
                    c_append((rid, group, index, block_id, block, key, block_size))
                    seen.add(block_id)
        except Exception:  # noqa: BLE001 - a missing field (or a property that raises), an odd type
            _undo(snap, seen, group, nd, nc)
            _record_blocks_guarded(snap, rid, m, blocks, boundary)


def _undo(snap: Snapshot, seen: set[int], group: int, nd: int, nc: int) -> None:
    """Forget the records of one request and group made since ``len(dirty), len(clean)``
    were ``nd, nc`` (the fast loop met a block it cannot read plainly)."""
    for records, n in ((snap.dirty, nd), (snap.clean, nc)):
        for rec in records[n:]:
            seen.discard(rec[3])
            snap.extra_keys.pop((group, rec[3]), None)
        del records[n:]


def _blocks_getter(r: Reader, m: ManagerRecord) -> Any:
    """``req_to_blocks.get`` of one manager (``.get()``: never insert into the defaultdict)."""
    req_to_blocks = r.get(m.manager, V.REQ_TO_BLOCKS, "SingleTypeKVCacheManager", BLOCKS)
    if is_missing(req_to_blocks):
        return None
    getter = getattr(req_to_blocks, "get", None)
    if getter is None:
        r.miss(f"SingleTypeKVCacheManager.{V.REQ_TO_BLOCKS}.get", BLOCKS)
    return getter


class _Odd(Exception):
    """A block the fast loop cannot read plainly: read the request's blocks again, guarded."""


def _record_blocks_guarded(snap: Snapshot, rid: str, m: ManagerRecord, blocks: Any, boundary: int) -> None:
    r = snap.reader
    cache = snap.cache
    assert cache is not None
    seen = snap.seen.setdefault(m.group, set())
    for index, block in enumerate(blocks):
        is_null = r.get(block, V.BLOCK_IS_NULL, "KVCacheBlock", BLOCKS)
        key = r.get(block, V.BLOCK_HASH_ATTR, "KVCacheBlock", BLOCKS)
        block_id = r.int_(block, V.BLOCK_ID_ATTR, "KVCacheBlock", BLOCKS)
        if is_missing(is_null) or is_missing(key) or is_missing(block_id):
            return
        if is_null or key is None:
            continue
        if block_id in seen:  # shared by several requests: count it once
            continue
        keys = cache.keys_of(block_id, key)
        rec = (rid, m.group, index, block_id, block, key, m.block_size)
        if index >= boundary:
            seen.add(block_id)
            snap.dirty.append(rec)
        elif any(cache.contains(k, block_id) for k in keys):
            seen.add(block_id)
            snap.clean.append(rec)
        else:
            continue
        if len(keys) > 1:
            snap.extra_keys[(m.group, block_id)] = keys
