"""FTR01-FTR05 against vLLM 0.34.0's real scheduler on CPU."""

from __future__ import annotations

import pytest

from ftlint.runtime import (
    FaultInvariantError,
    check_fault_handling,
    observe_fault_handling,
    verify_fault_handling,
)
from ftlint.runtime import handlers as good

# These tests run bad fault handlers on purpose: opt out of --ftlint-verify.
pytestmark = pytest.mark.ftlint_verify(False)


def codes(report):
    return sorted(v.code for v in report.violations)


# -- FTR01: vLLM's own on_fault ------------------------------------------------


def test_upstream_on_fault_after_failed_prefill_leaves_dirty_blocks(h, sched, prompt):
    h.prefill_fault(sched, {"r0": prompt})
    dirty_ids = [
        b.block_id
        for b in sched.kv_cache_manager.coordinator.single_type_managers[0].req_to_blocks["r0"]
        if b.block_hash is not None
    ]
    assert len(dirty_ids) == 2  # 47 tokens: two full blocks cached at schedule time
    sentinel = h.make_sentinel(sched)

    with pytest.raises(FaultInvariantError) as err, verify_fault_handling(sched):
        sentinel.on_fault(RuntimeError("collective failed"))

    vs = err.value.violations
    assert [v.code for v in vs] == ["FTR01", "FTR01"]
    assert sorted(v.block_id for v in vs) == sorted(dirty_ids)
    assert {v.request_id for v in vs} == {"r0"}
    assert sorted(v.token_range for v in vs) == [(0, 16), (16, 32)]
    assert all(v.block_hash and v.explanation for v in vs)
    assert "FTR01 dirty-block-cached" in str(err.value)
    assert sentinel.engine.aborted == ["r0"]  # the handler did run to completion
    # The bug is real: a new request with the same prompt reuses never-computed KV.
    assert h.prefix_hit(sched, prompt) == 32


def test_upstream_on_fault_after_failed_decode_step(h, sched, prompt):
    h.decode_fault(sched, {"r0": prompt})
    req = sched.requests["r0"]
    assert (req.num_computed_tokens, req.num_in_flight_tokens) == (48, 1)
    report = check_fault_handling(sched, h.make_sentinel(sched).on_fault, RuntimeError("boom"))
    assert codes(report) == ["FTR01"]
    (v,) = report.violations
    assert v.token_range == (32, 48)
    assert (report.dirty_total, report.dirty_evicted) == (1, 0)
    assert (report.clean_total, report.clean_evicted) == (2, 0)
    assert h.prefix_hit(sched, [*prompt, 147, 5]) == 48  # dirty block hit


# -- a correct handler -----------------------------------------------------------


@pytest.mark.parametrize("handler", [good.abort_all_evicting_tail, good.resume_all_evicting_tail])
def test_tail_evicting_handler_passes_and_keeps_clean_prefix(h, sched, prompt, handler):
    h.decode_fault(sched, {"r0": prompt, "r1": h.prompt_tokens(2, 47)})
    with verify_fault_handling(sched, strict=True) as report:
        handler(sched)
    assert report.violations == [] and report.verified
    assert (report.dirty_total, report.dirty_evicted) == (2, 2)
    assert (report.clean_total, report.clean_evicted) == (4, 0)
    # resume/new request hits the clean prefix (2 blocks), not the dirty block
    if handler is good.abort_all_evicting_tail:
        assert h.prefix_hit(sched, [*prompt, 147, 5]) == 32
    else:
        assert h.resume_hit(sched, "r0") == 32


def test_tail_evicting_handler_after_failed_prefill(h, sched, prompt):
    h.prefill_fault(sched, {"r0": prompt})
    with verify_fault_handling(sched, strict=True) as report:
        good.resume_all_evicting_tail(sched)
    assert report.ok(strict=True)
    assert (report.dirty_total, report.dirty_evicted, report.clean_total) == (2, 2, 0)
    assert h.resume_hit(sched, "r0") == 0


# -- FTR02 --------------------------------------------------------------------------


def test_evict_everything_is_ftr02_not_ftr01(h, sched, prompt, fh):
    h.decode_fault(sched, {"r0": prompt, "r1": h.prompt_tokens(2, 47)})
    with verify_fault_handling(sched) as report:  # not strict: reported only
        fh.evict_everything_then_abort(sched)
    assert codes(report) == ["FTR02"] * 4
    assert report.clean_evicted == 4 and report.dirty_evicted == 2
    assert report.failing() == []
    with pytest.raises(FaultInvariantError) as err:
        sched2 = h.build_scheduler()
        h.decode_fault(sched2, {"r0": prompt})
        with verify_fault_handling(sched2, strict=True):
            fh.evict_everything_then_abort(sched2)
    assert [v.code for v in err.value.violations] == ["FTR02", "FTR02"]
    assert h.prefix_hit(sched, prompt) == 0  # the resume lost its KV reuse


# -- FTR03 -------------------------------------------------------------------------


def test_resume_without_counter_reset_is_ftr03_hang(h, sched, prompt, fh):
    h.decode_fault(sched, {"r0": prompt})
    with pytest.raises(FaultInvariantError) as err, verify_fault_handling(sched):
        fh.resume_without_counter_reset(sched)
    (v,) = err.value.violations
    assert v.code == "FTR03" and v.request_id == "r0"
    assert "num_stale_output_tokens=1" in v.explanation and "hang" in v.explanation
    # and it really hangs: the scheduler never schedules it again
    for _ in range(3):
        assert "r0" not in sched.schedule().num_scheduled_tokens


def test_resume_with_drop_stale_output_is_ftr03(h, sched, prompt, fh):
    h.prefill_fault(sched, {"r0": prompt})
    report = check_fault_handling(sched, fh.resume_dropping_stale_output, sched)
    (v,) = report.violations
    assert v.code == "FTR03"
    assert "drop_stale_output=True" in v.explanation
    assert "dropped" in v.explanation


# -- FTR04 -------------------------------------------------------------------------


def test_negative_placeholders_is_ftr04(h, sched, prompt, fh):
    h.prefill_fault(sched, {"r0": prompt})
    report = check_fault_handling(sched, fh.underflow_placeholders, sched)
    assert codes(report) == ["FTR04"]
    assert "num_output_placeholders=-1" in report.violations[0].explanation


# -- FTR05: zeroing ------------------------------------------------------------------


@pytest.mark.parametrize("fault", ["prefill", "decode"])
def test_retry_in_place_without_zeroing_record_is_ftr05(h, prompt, fh, fault):
    sched = h.build_scheduler(zeroing=True)
    getattr(h, f"{fault}_fault")(sched, {"r0": prompt})
    with pytest.raises(FaultInvariantError) as err, verify_fault_handling(sched):
        fh.retry_in_place_unrecorded(sched)
    vs = err.value.violations
    assert {v.code for v in vs} == {"FTR05"}
    assert len(vs) == (2 if fault == "prefill" else 1)


@pytest.mark.parametrize("fault", ["prefill", "decode"])
def test_retry_in_place_recording_zeroing_passes(h, prompt, fh, fault):
    sched = h.build_scheduler(zeroing=True)
    getattr(h, f"{fault}_fault")(sched, {"r0": prompt})
    tail = good.unconfirmed_tail_block_ids(sched)
    with verify_fault_handling(sched, strict=True) as report:
        fh.retry_in_place_recorded(sched)
    assert report.ok(strict=True) and report.dirty_evicted == len(tail)
    # the retry step sends the recorded blocks to the worker for zeroing
    out = sched.schedule()
    assert tail <= set(out.new_block_ids_to_zero or ())


def test_zeroing_needs_no_record_when_blocks_are_freed(h, prompt):
    sched = h.build_scheduler(zeroing=True)
    h.prefill_fault(sched, {"r0": prompt})
    report = check_fault_handling(sched, good.abort_all_evicting_tail, sched)
    assert report.ok(strict=True)
    # vLLM re-records freed blocks for zeroing when it reallocates them
    sched.add_request(h.make_request("again", prompt))
    out = sched.schedule()
    assert out.new_block_ids_to_zero


def test_zeroing_off_skips_ftr05(h, sched, prompt, fh):
    h.prefill_fault(sched, {"r0": prompt})
    report = check_fault_handling(sched, fh.retry_in_place_unrecorded, sched)
    assert report.violations == [] and report.verified


# -- several KV-cache groups, async scheduling -------------------------------------


def test_two_kv_cache_groups(h, prompt):
    sched = h.build_scheduler(groups=("full", "full"))
    assert len(sched.kv_cache_manager.coordinator.single_type_managers) == 2
    h.prefill_fault(sched, {"r0": prompt})
    report = check_fault_handling(sched, h.make_sentinel(sched).on_fault, RuntimeError())
    assert codes(report) == ["FTR01"] * 4
    assert {v.group for v in report.violations} == {0, 1}

    sched = h.build_scheduler(groups=("full", "full"))
    h.decode_fault(sched, {"r0": prompt})
    report = check_fault_handling(sched, good.abort_all_evicting_tail, sched)
    assert report.ok(strict=True)
    assert (report.dirty_total, report.clean_total) == (2, 4)


def test_async_scheduler_decode_fault(h, prompt):
    sched = h.build_scheduler(async_scheduling=True)
    h.decode_fault(sched, {"r0": prompt})
    assert sched.requests["r0"].num_output_placeholders > 0
    report = check_fault_handling(sched, h.make_sentinel(sched).on_fault, RuntimeError())
    assert codes(report) == ["FTR01"]
    sched = h.build_scheduler(async_scheduling=True)
    h.decode_fault(sched, {"r0": prompt})
    report = check_fault_handling(sched, good.resume_all_evicting_tail, sched)
    assert report.ok(strict=True)


# -- exceptions, observe-only -------------------------------------------------------


def test_handler_exception_propagates_unchanged_with_report_attached(h, sched, prompt):
    h.prefill_fault(sched, {"r0": prompt})
    boom = ValueError("handler crashed")

    def handler():
        h.make_sentinel(sched).on_fault(RuntimeError())
        raise boom

    with pytest.raises(ValueError) as err, verify_fault_handling(sched):
        handler()
    assert err.value is boom
    assert [v.code for v in err.value.ftlint_report.violations] == ["FTR01", "FTR01"]


def test_verifier_changes_nothing(h, sched, prompt):
    h.decode_fault(sched, {"r0": prompt, "r1": h.prompt_tokens(3, 40)})
    before = h.state_fingerprint(sched)
    with observe_fault_handling(sched) as report:
        pass  # no handler: the state after must equal the state before
    assert h.state_fingerprint(sched) == before
    assert report.verified and (report.dirty_total, report.clean_total) == (1, 4)
