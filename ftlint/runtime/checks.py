"""FTR01-FTR05: compare the entry snapshot with the state the handler left.

A runtime check is one function registered with :func:`runtime_check`, which
carries its code, its name, whether it raises by default and (its docstring)
its doc.  :func:`run_checks` runs every registered check in registration
order, unless the snapshot could not read what the check's code needs, and
``report.CODES`` is filled from the same registry.  A check reads the
snapshot, reads the scheduler's state after the handler through ``r`` (a
:class:`Reader`: what is missing becomes "cannot verify" for the codes given)
and appends :class:`Violation` objects to ``report.violations``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ftlint.core import vocabulary as V

from .report import CODES, FaultReport, Violation
from .snapshot import (
    BLOCKS,
    Reader,
    Snapshot,
    gc_paused,
    hash_text,
    is_missing,
)

CheckFunction = Callable[[Snapshot, FaultReport, Reader], None]


@dataclass(frozen=True)
class RuntimeCheck:
    """One registered runtime check."""

    code: str
    name: str
    raises: bool  # raises by default (False: reported, raised only with strict=True)
    run: CheckFunction

    @property
    def doc(self) -> str:
        return inspect.getdoc(self.run) or ""


#: code -> check, in registration order (the order the checks run and report in).
CHECKS: dict[str, RuntimeCheck] = {}


def runtime_check(code: str, name: str, *, raises: bool = True) -> Callable[[CheckFunction], CheckFunction]:
    """Register the decorated ``fn(snap, report, r)`` as the runtime check ``code``
    (``name``: the violation's name, e.g. ``"dirty-block-cached"``; ``raises=False``:
    reported, raised only with ``strict=True``).  Its docstring is its doc."""

    def register(fn: CheckFunction) -> CheckFunction:
        known = CHECKS.get(code)
        if known is not None and known.run is not fn:
            raise ValueError(f"runtime check {code} is already registered ({known.run.__qualname__})")
        CHECKS[code] = RuntimeCheck(code, name, raises, fn)
        CODES[code] = (name, raises)
        return fn

    return register


def unregister_check(code: str) -> None:
    """Forget the runtime check ``code`` (tests that register one of their own)."""
    CHECKS.pop(code, None)
    CODES.pop(code, None)


def run_checks(snap: Snapshot, report: FaultReport) -> None:
    """Fill ``report`` from ``snap`` and the scheduler's current state."""
    with gc_paused():
        _run_checks(snap, report)


def _run_checks(snap: Snapshot, report: FaultReport) -> None:
    exit_reader = Reader()
    report.requests = len(snap.request_ids)
    report.dirty_total = len(snap.dirty)
    report.clean_total = len(snap.clean)
    if snap.cache is not None and snap.cache.ok:
        snap.cache = snap.cache.current(exit_reader)
    blocked = _blocked(snap.missing)
    for check in list(CHECKS.values()):
        if check.code not in blocked:
            check.run(snap, report, exit_reader)

    for name, codes in sorted({**snap.missing, **exit_reader.missing}.items()):
        for code in sorted(codes):
            report.cannot_verify.append(f"{code} {CODES[code][0]}: missing {name}")


def _blocked(missing: dict[str, set[str]]) -> set[str]:
    out: set[str] = set()
    for codes in missing.values():
        out |= codes
    return out


# -- the checks (registration order is the report's order) ---------------------------

_FTR01_TEXT = (
    "written by a step whose output was lost, yet {} still maps to this block in the prefix "
    "cache: a later request with this prefix would reuse KV that was never computed"
)
_FTR01_PRIMARY = _FTR01_TEXT.format("its hash")
_FTR01_SECONDARY = _FTR01_TEXT.format("a secondary hash")


@runtime_check("FTR01", "dirty-block-cached")
def dirty_block_cached(snap: Snapshot, report: FaultReport, r: Reader) -> None:
    """After the handler, a dirty block's hash (or a secondary hash) still maps to that
    block in ``block_pool.cached_block_hash_to_block``: a later request with this prefix,
    or the resumed request, gets a prefix hit on KV that was never computed.  Counts
    ``dirty_evicted``."""
    cache = snap.cache
    if cache is None or not cache.ok:
        return
    contains = cache._contain or cache.contains  # vLLM's own method when it has one (truthy alike)
    extra = snap.extra_keys
    violations = report.violations
    evicted = 0
    for rid, group, index, block_id, _block, key, bs in snap.dirty:
        keys = extra.get((group, block_id)) if extra else None
        if keys is None:
            if not contains(key, block_id):
                evicted += 1
                continue
            text = _FTR01_PRIMARY
        else:
            still: Sequence[Any] = [k for k in keys if contains(k, block_id)]
            if not still:
                evicted += 1
                continue
            text = _FTR01_PRIMARY if still[0] is key else _FTR01_SECONDARY
        violations.append(
            Violation(
                "FTR01",
                rid,
                text,
                block_id,
                key[:8].hex() if type(key) is bytes else hash_text(key),
                (index * bs, (index + 1) * bs),
                group,
            )
        )
    report.dirty_evicted += evicted


_FTR02_TEXT = (
    "confirmed (computed by a step that succeeded) but evicted from the prefix cache: "
    "the resumed request loses this KV reuse"
)


@runtime_check("FTR02", "clean-block-evicted", raises=False)
def clean_block_evicted(snap: Snapshot, report: FaultReport, r: Reader) -> None:
    """A clean, cached block of a faulted request was evicted (over-eviction, e.g.
    ``reset_prefix_cache()``): not a correctness bug, but the resumed request recomputes
    its prefix.  Counts ``clean_evicted``; raises only with ``strict=True``."""
    cache = snap.cache
    if cache is None or not cache.ok:
        return
    contains = cache._contain or cache.contains
    violations = report.violations
    for rid, group, index, block_id, _block, key, bs in snap.clean:
        if contains(key, block_id):
            continue
        report.clean_evicted += 1
        violations.append(
            Violation(
                "FTR02",
                rid,
                _FTR02_TEXT,
                block_id,
                key[:8].hex() if type(key) is bytes else hash_text(key),
                (index * bs, (index + 1) * bs),
                group,
            )
        )


def _status_name(status: Any) -> str:
    name = getattr(status, "name", None)
    return name if isinstance(name, str) else str(status)


_UNSET = object()
_STALE = V.CURRENT.counters[1]  # num_stale_output_tokens
_IN_FLIGHT = V.TAIL_BOUNDARY[1]  # num_in_flight_tokens


@runtime_check("FTR03", "resume-blocked")
def resume_blocked(snap: Snapshot, report: FaultReport, r: Reader) -> None:
    """A request the handler sent back to waiting still has counters from the lost step:
    stale output it waits for (hang), a stale frame it will drop (the first good one), or
    ``num_in_flight_tokens`` not reset (its confirmed boundary is off)."""
    codes = ("FTR03",)
    waiting = V.WAITING_STATUSES
    last: Any = _UNSET  # the last status read and its name: most requests share a status
    last_name: Any = None
    for rid, req in zip(snap.request_ids, snap.request_objs, strict=True):
        # The usual request, in plain reads (the vocabulary's REQUEST_STATUS and counters):
        # not waiting, or waiting with nothing left over.  Unsure: the guarded reads decide.
        try:
            status = req.status
            if status is not last:
                last_name = status.name
                last = status
            if type(last_name) is str:
                if last_name not in waiting:
                    continue
                in_flight, stale = req.num_in_flight_tokens, req.num_stale_output_tokens
                discard = getattr(req, V.ASYNC_DISCARD_FIELD, 0)
                if (
                    type(in_flight) is int
                    and in_flight == 0
                    and type(stale) is int
                    and stale <= 0
                    and not (isinstance(discard, int) and discard > 0)
                ):
                    continue
        except Exception:  # noqa: BLE001 - unsure (a property that raises, an odd type): the guarded reads decide
            last = _UNSET
        status = r.get(req, V.REQUEST_STATUS, "Request", codes)
        if is_missing(status):
            return
        if _status_name(status) not in waiting:
            continue
        in_flight = r.int_(req, _IN_FLIGHT, "Request", codes)
        if is_missing(in_flight):
            return
        stale = r.opt(req, _STALE)
        drop = r.opt(req, V.DROP_STALE_OUTPUT)
        discard = r.opt(req, V.ASYNC_DISCARD_FIELD)
        if is_missing(stale) and is_missing(discard):
            r.miss(f"Request.{_STALE} (or {V.ASYNC_DISCARD_FIELD})", codes)
            return
        stale = 0 if is_missing(stale) or not isinstance(stale, int) else stale
        discard = 0 if is_missing(discard) or not isinstance(discard, int) else discard
        dropping = drop is True and stale > 0
        reasons: list[str] = []
        if dropping or discard > 0:
            reasons.append(
                "it is marked to drop its next output frame as stale, but the failed "
                "step's frame never arrives, so the first good frame after resume "
                "is dropped"
            )
        elif stale > 0:
            reasons.append(
                "it waits for stale output of the failed step, which never arrives: "
                "the scheduler skips it forever (hang)"
            )
        if in_flight:
            reasons.append(
                "num_in_flight_tokens was not reset, so its confirmed boundary "
                "(num_computed_tokens - num_in_flight_tokens) is off by the lost step"
            )
        if not reasons:
            continue
        state = [f"num_in_flight_tokens={in_flight}", f"num_stale_output_tokens={stale}"]
        if drop is True:
            state.append("drop_stale_output=True")
        if discard:
            state.append(f"async_tokens_to_discard={discard}")
        why = "; ".join(reasons)
        report.violations.append(Violation("FTR03", rid, f"back in the waiting queue with {', '.join(state)}: {why}"))


@runtime_check("FTR04", "placeholder-underflow")
def placeholder_underflow(snap: Snapshot, report: FaultReport, r: Reader) -> None:
    """A request in the scheduler (running on entry, or in ``Scheduler.requests`` after)
    has ``num_output_placeholders < 0``: a late or replayed output frame was counted
    twice."""
    codes = ("FTR04",)
    requests: list[Any] = list(snap.request_objs)
    table = r.opt(snap.scheduler, V.SCHEDULER_REQUESTS)
    if not is_missing(table):
        values = getattr(table, "values", None)
        if values is not None:
            requests.extend(values())
    # The usual case: every count a plain int >= 0 (the vocabulary's NUM_OUTPUT_PLACEHOLDERS,
    # read as a plain attribute): nothing to report.  Else the guarded loop below decides.
    try:
        for req in requests:
            value = req.num_output_placeholders
            if type(value) is not int or value < 0:
                break
        else:
            return
    except Exception:  # noqa: BLE001 - anything odd is read again through the guarded reads
        pass
    seen: set[int] = set()
    for req in requests:
        if id(req) in seen:
            continue
        seen.add(id(req))
        try:  # the usual case, read plainly; anything else through the guarded read
            value = req.num_output_placeholders
            if type(value) is int and value >= 0:
                continue
        except Exception:  # noqa: BLE001 - anything odd is read again through the guarded read
            pass
        value = r.int_(req, V.NUM_OUTPUT_PLACEHOLDERS, "Request", codes)
        if is_missing(value):
            return
        if value < 0:
            rid = r.opt(req, V.REQUEST_ID)
            report.violations.append(
                Violation(
                    "FTR04",
                    str(rid),
                    f"num_output_placeholders={value} (< 0): a late or replayed output frame was counted twice",
                )
            )


_FTR05_TEXT = (
    "KV zeroing is required and this dirty block is still allocated, but it was not recorded "
    "for zeroing (record_blocks_for_zeroing from a block-aligned start, before anything "
    "frees): its stale contents are read as state"
)


@runtime_check("FTR05", "zeroing-not-recorded")
def zeroing_not_recorded(snap: Snapshot, report: FaultReport, r: Reader) -> None:
    """KV zeroing is required (``needs_kv_cache_zeroing``) and a dirty block is still
    allocated after the handler (``ref_cnt > 0``) but was not recorded for zeroing
    (``new_block_ids``)."""
    if not snap.zeroing:
        return
    codes = ("FTR05",)
    recorded: dict[int, set[int]] = {}
    for m in snap.managers:
        if not m.records_zeroing:
            continue
        ids = r.get(m.manager, V.NEW_BLOCK_IDS, "SingleTypeKVCacheManager", codes)
        if is_missing(ids):
            return
        recorded.setdefault(m.group, set()).update(ids)
    for rid, group, index, block_id, block, key, bs in snap.dirty:
        ids = recorded.get(group)
        if ids is None:
            continue  # this group's blocks are not zeroed (e.g. Mamba state)
        try:  # plain read of the vocabulary's BLOCK_REF_CNT; anything odd through the guarded read
            ref_cnt = block.ref_cnt
            if type(ref_cnt) is not int:
                raise TypeError
        except Exception:  # noqa: BLE001 - read again, guarded: it reports what is missing
            ref_cnt = r.int_(block, V.BLOCK_REF_CNT, "KVCacheBlock", codes)
            if is_missing(ref_cnt):
                return
        if ref_cnt <= 0:
            continue  # freed: vLLM re-records it for zeroing when it reallocates it
        if block_id in ids:
            continue
        report.violations.append(
            Violation(
                "FTR05",
                rid,
                _FTR05_TEXT,
                block_id,
                key[:8].hex() if type(key) is bytes else hash_text(key),
                (index * bs, (index + 1) * bs),
                group,
            )
        )


__all__ = ["BLOCKS", "CHECKS", "RuntimeCheck", "run_checks", "runtime_check", "unregister_check"]
