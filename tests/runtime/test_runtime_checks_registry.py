"""Issue 13: a runtime check is one function the runner discovers.

A check registered with ``runtime_check`` (code, name, raises, its docstring as doc) is
run by the verifier and its code reported, through the public API, on vLLM's real
scheduler; ``CODES`` is derived from the same registry.
"""

from __future__ import annotations

import pytest

from ftlint.core import vocabulary as V
from ftlint.runtime import (
    CHECKS,
    CODES,
    FaultInvariantError,
    Violation,
    check_fault_handling,
    runtime_check,
    unregister_check,
    verify_fault_handling,
)
from ftlint.runtime import handlers as good

pytestmark = pytest.mark.ftlint_verify(False)

CODE = "FTR90"


@pytest.fixture
def still_running():
    """A check of this test's own: every request running on entry must have left
    ``Scheduler.running`` (a handler that aborts or preempts them all)."""

    @runtime_check(CODE, "request-still-running")
    def request_still_running(snap, report, r):
        """A request running on entry is still running after the handler."""
        running = r.get(snap.scheduler, V.SCHEDULER_RUNNING, "Scheduler", (CODE,))
        if running is None or not isinstance(running, list):
            return
        left = {id(req) for req in running}
        for rid, req in zip(snap.request_ids, snap.request_objs, strict=True):
            if id(req) in left:
                report.violations.append(Violation(CODE, rid, "still running after the fault handler"))

    yield request_still_running
    unregister_check(CODE)


def test_registered_check_runs_and_reports_its_code(h, sched, prompt, still_running):
    assert CODES[CODE] == ("request-still-running", True)
    assert CHECKS[CODE].doc == "A request running on entry is still running after the handler."
    h.decode_fault(sched, {"r0": prompt, "r1": h.prompt_tokens(2, 47)})

    report = check_fault_handling(sched, lambda: None)  # a handler that does nothing
    assert report.verified
    found = report.by_code(CODE)
    assert sorted(v.request_id for v in found) == ["r0", "r1"]
    assert all(v.name == "request-still-running" and v.raises() for v in found)
    assert "FTR90 request-still-running: request 'r0'" in report.format()
    assert {v.code for v in report.violations} == {"FTR01", CODE}  # the built-in checks still run


def test_registered_check_raises_and_passes_like_a_built_in(h, prompt, still_running):
    sched = h.build_scheduler()
    h.decode_fault(sched, {"r0": prompt})
    with pytest.raises(FaultInvariantError) as err, verify_fault_handling(sched):
        h.make_sentinel(sched).on_fault(RuntimeError("x"))  # aborts: nothing left running
    assert {v.code for v in err.value.violations} == {"FTR01"}

    sched = h.build_scheduler()
    h.decode_fault(sched, {"r0": prompt})
    with verify_fault_handling(sched, strict=True) as report:
        good.abort_all_evicting_tail(sched)
    assert report.ok(strict=True)


def test_registered_check_not_raising_by_default(h, sched, prompt):
    @runtime_check("FTR91", "noted-only", raises=False)
    def noted_only(snap, report, r):
        """Reports every running request; raises only with strict=True."""
        for rid in snap.request_ids:
            report.violations.append(Violation("FTR91", rid, "noted"))

    try:
        h.decode_fault(sched, {"r0": prompt})
        with verify_fault_handling(sched) as report:  # does not raise: FTR91 is reported only
            good.resume_all_evicting_tail(sched)
        assert [v.code for v in report.violations] == ["FTR91"]
        assert report.failing() == [] and report.failing(strict=True) == report.violations
    finally:
        unregister_check("FTR91")
    assert "FTR91" not in CODES and "FTR91" not in CHECKS


def test_registered_check_reading_a_missing_field_cannot_verify(h, sched, prompt):
    @runtime_check("FTR92", "reads-a-renamed-field")
    def reads_renamed(snap, report, r):
        """Reads a field this vLLM does not have."""
        r.get(snap.scheduler, "renamed_in_vllm_9", "Scheduler", ("FTR92",))

    try:
        h.decode_fault(sched, {"r0": prompt})
        report = check_fault_handling(sched, good.abort_all_evicting_tail, sched)
        assert report.cannot_verify == ["FTR92 reads-a-renamed-field: missing Scheduler.renamed_in_vllm_9"]
        assert not report.verified and report.violations == []
    finally:
        unregister_check("FTR92")


def test_codes_are_the_registry():
    assert list(CHECKS)[:5] == ["FTR01", "FTR02", "FTR03", "FTR04", "FTR05"]
    assert {c.code: (c.name, c.raises) for c in CHECKS.values()} == CODES
    assert [c.code for c in CHECKS.values() if not c.raises] == ["FTR02"]
    assert all(c.doc for c in CHECKS.values())


def test_a_code_cannot_be_registered_twice():
    with pytest.raises(ValueError, match="FTR01 is already registered"):
        runtime_check("FTR01", "other")(lambda snap, report, r: None)
    assert CHECKS["FTR01"].name == "dirty-block-cached"
