"""FTR01-FTR05: compare the entry snapshot with the state the handler left."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .report import CODES, FaultReport, Violation
from .snapshot import (
    BLOCKS,
    WAITING_STATUSES,
    BlockRecord,
    Reader,
    Snapshot,
    gc_paused,
    is_missing,
)


def _block_violation(code: str, rec: BlockRecord, explanation: str) -> Violation:
    return Violation(
        code=code,
        request_id=rec.request_id,
        explanation=explanation,
        block_id=rec.block_id,
        block_hash=rec.hash_text,
        token_range=rec.token_range,
        group=rec.group,
    )


def run_checks(snap: Snapshot, report: FaultReport) -> None:
    """Fill ``report`` from ``snap`` and the scheduler's current state."""
    with gc_paused():
        _run_checks(snap, report)


def _run_checks(snap: Snapshot, report: FaultReport) -> None:
    exit_reader = Reader()
    report.requests = len(snap.requests)
    report.dirty_total = len(snap.dirty)
    report.clean_total = len(snap.clean)
    blocked = _blocked(snap.missing)

    cache = snap.cache
    if cache is not None and cache.ok and ("FTR01" not in blocked or "FTR02" not in blocked):
        _check_cache(snap, report, blocked)
    if "FTR03" not in blocked:
        _check_resume(snap, report, exit_reader)
    if "FTR04" not in blocked:
        _check_placeholders(snap, report, exit_reader)
    if snap.zeroing and "FTR05" not in _blocked(snap.missing):
        _check_zeroing(snap, report, exit_reader)

    for name, codes in sorted({**snap.missing, **exit_reader.missing}.items()):
        for code in sorted(codes):
            report.cannot_verify.append(f"{code} {CODES[code][0]}: missing {name}")


def _blocked(missing: dict[str, set[str]]) -> set[str]:
    out: set[str] = set()
    for codes in missing.values():
        out |= codes
    return out


def _check_cache(snap: Snapshot, report: FaultReport, blocked: set[str]) -> None:
    cache = snap.cache
    assert cache is not None
    contains = cache._contain or cache.contains  # vLLM's own method when it has one (truthy alike)
    for rec in snap.dirty:
        keys = rec.keys
        if len(keys) == 1:
            still: Sequence[Any] = keys if contains(keys[0], rec.block_id) else ()
        else:
            still = [k for k in keys if contains(k, rec.block_id)]
        if not still:
            report.dirty_evicted += 1
        elif "FTR01" not in blocked:
            which = "its hash" if still[0] is rec.keys[0] else "a secondary hash"
            report.violations.append(
                _block_violation(
                    "FTR01",
                    rec,
                    f"written by a step whose output was lost, yet {which} still maps "
                    "to this block in the prefix cache: a later request with this "
                    "prefix would reuse KV that was never computed",
                )
            )
    for rec in snap.clean:
        if contains(rec.keys[0], rec.block_id):
            continue
        report.clean_evicted += 1
        if "FTR02" not in blocked:
            report.violations.append(
                _block_violation(
                    "FTR02",
                    rec,
                    "confirmed (computed by a step that succeeded) but evicted from "
                    "the prefix cache: the resumed request loses this KV reuse",
                )
            )


def _status_name(status: Any) -> str:
    name = getattr(status, "name", None)
    return name if isinstance(name, str) else str(status)


def _resume_clean(req: Any) -> bool:
    """Plain reads for the usual request: not waiting, or waiting with nothing left over.
    False when unsure (a field missing or odd): the guarded reads decide."""
    try:
        name = req.status.name
        if type(name) is not str:
            return False
        if name not in WAITING_STATUSES:
            return True
        in_flight, stale = req.num_in_flight_tokens, req.num_stale_output_tokens
        discard = getattr(req, "async_tokens_to_discard", 0)
        return (
            type(in_flight) is int
            and in_flight == 0
            and type(stale) is int
            and stale <= 0
            and not (isinstance(discard, int) and discard > 0)
        )
    except Exception:  # noqa: BLE001 - unsure (a property that raises, an odd type): the guarded reads decide
        return False


def _check_resume(snap: Snapshot, report: FaultReport, r: Reader) -> None:
    codes = ("FTR03",)
    for rr in snap.requests:
        req = rr.request
        if _resume_clean(req):
            continue
        status = r.get(req, "status", "Request", codes)
        if is_missing(status):
            return
        if _status_name(status) not in WAITING_STATUSES:
            continue
        in_flight = r.int_(req, "num_in_flight_tokens", "Request", codes)
        if is_missing(in_flight):
            return
        stale = r.opt(req, "num_stale_output_tokens")
        drop = r.opt(req, "drop_stale_output")
        discard = r.opt(req, "async_tokens_to_discard")
        if is_missing(stale) and is_missing(discard):
            r.miss("Request.num_stale_output_tokens (or async_tokens_to_discard)", codes)
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
        problems = state
        report.violations.append(
            Violation(
                code="FTR03",
                request_id=rr.request_id,
                explanation=f"back in the waiting queue with {', '.join(problems)}: {why}",
            )
        )


def _check_placeholders(snap: Snapshot, report: FaultReport, r: Reader) -> None:
    codes = ("FTR04",)
    seen: set[int] = set()
    requests: list[Any] = [rr.request for rr in snap.requests]
    table = r.opt(snap.scheduler, "requests")
    if not is_missing(table):
        values = getattr(table, "values", None)
        if values is not None:
            requests.extend(values())
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
        value = r.int_(req, "num_output_placeholders", "Request", codes)
        if is_missing(value):
            return
        if value < 0:
            rid = r.opt(req, "request_id")
            report.violations.append(
                Violation(
                    code="FTR04",
                    request_id=str(rid),
                    explanation=f"num_output_placeholders={value} (< 0): a late or "
                    "replayed output frame was counted twice",
                )
            )


def _check_zeroing(snap: Snapshot, report: FaultReport, r: Reader) -> None:
    codes = ("FTR05",)
    recorded: dict[int, set[int]] = {}
    for m in snap.managers:
        if not m.records_zeroing:
            continue
        ids = r.get(m.manager, "new_block_ids", "SingleTypeKVCacheManager", codes)
        if is_missing(ids):
            return
        recorded.setdefault(m.group, set()).update(ids)
    for rec in snap.dirty:
        if rec.group not in recorded:
            continue  # this group's blocks are not zeroed (e.g. Mamba state)
        ref_cnt = r.int_(rec.block, "ref_cnt", "KVCacheBlock", codes)
        if is_missing(ref_cnt):
            return
        if ref_cnt <= 0:
            continue  # freed: vLLM re-records it for zeroing when it reallocates it
        if rec.block_id in recorded[rec.group]:
            continue
        report.violations.append(
            _block_violation(
                "FTR05",
                rec,
                "KV zeroing is required and this dirty block is still allocated, but "
                "it was not recorded for zeroing (record_blocks_for_zeroing from a "
                "block-aligned start, before anything frees): its stale contents "
                "are read as state",
            )
        )


__all__ = ["BLOCKS", "run_checks"]
