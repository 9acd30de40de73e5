"""A fault handler that hangs, and one that runs while another thread keeps driving the
scheduler: neither may pass silently (issue 23)."""

from __future__ import annotations

import threading
import time

import pytest

from ftlint.runtime import FaultObservation
from ftlint.runtime.report import FaultHandlerTimeout

from .conftest import PROMPT

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.ftlint_verify(False)

HANGING = """
import time
from ftlint.runtime import vllm_cpu as h

P = h.prompt_tokens(1, 47)

class HangingSentinel:
    def __init__(self, scheduler):
        self.scheduler = scheduler
    def on_fault(self, exc):
        while True:  # waits for stale output that never comes
            time.sleep(0.01)

def test_hanging_handler():
    s = h.build_scheduler()
    h.prefill_fault(s, {"r0": P})
    try:  # the engine swallows what its handler raises
        HangingSentinel(s).on_fault(RuntimeError())
    except Exception:
        pass
"""


def test_hanging_handler_times_out_and_fails_the_test(pytester, vllm_ready):
    pytester.makepyfile(test_hang=HANGING)
    pytester.syspathinsert()
    start = time.monotonic()
    result = pytester.runpytest_subprocess(
        "--ftlint-verify-target",
        "test_hang:HangingSentinel.on_fault",
        "--ftlint-verify-timeout",
        "1",
        "-p",
        "no:cacheprovider",
        timeout=240,
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*cannot verify: the fault handler did not return within 1s (a hang?)*"])
    assert time.monotonic() - start < 200


def test_timeout_interrupts_the_observed_call(sched, h):
    h.prefill_fault(sched, {"r0": PROMPT})
    obs = FaultObservation(sched, raise_=False, warn=False, timeout=0.3)
    with pytest.raises(FaultHandlerTimeout), obs:
        while True:
            time.sleep(0.01)
    assert obs.report.timed_out
    assert any("did not return within 0.3s" in r for r in obs.report.cannot_verify)


def test_no_timeout_when_the_handler_returns(sched, h):
    obs = FaultObservation(sched, raise_=False, warn=False, timeout=0.2)
    with obs:
        pass
    time.sleep(0.4)  # the watchdog is stopped: nothing fires later
    assert not obs.report.timed_out and obs.report.cannot_verify == []


def test_scheduler_driven_by_another_thread_is_cannot_verify(sched, h):
    """vLLM's on_fault leaves dirty blocks cached (FTR01); a thread that keeps adding and
    scheduling requests during the call would hide that: the verifier says it cannot verify."""
    h.prefill_fault(sched, {f"r{i}": h.prompt_tokens(i + 1, 47) for i in range(2)})
    in_handler, mutated = threading.Event(), threading.Event()

    def engine_loop_not_paused():
        in_handler.wait(10)
        sched.add_request(h.make_request("late", h.prompt_tokens(9, 40)))
        sched.schedule()
        mutated.set()

    t = threading.Thread(target=engine_loop_not_paused, name="busy-loop")
    t.start()
    sentinel = h.make_sentinel(sched)
    obs = FaultObservation(sched, raise_=False, warn=False)
    with obs:
        sentinel.on_fault(RuntimeError("collective failed"))
        in_handler.set()
        assert mutated.wait(10)
    t.join(10)
    text = "; ".join(obs.report.cannot_verify)
    assert "changed by another thread during the verified call" in text
    assert "add_request() from thread 'busy-loop'" in text and "schedule() from thread 'busy-loop'" in text
    assert not obs.report.verified
    # the scheduler's own methods are back
    assert "add_request" not in vars(sched) and "schedule" not in vars(sched)


def test_same_thread_scheduler_calls_are_fine(sched, h):
    h.prefill_fault(sched, {"r0": PROMPT})
    obs = FaultObservation(sched, raise_=False, warn=False)
    with obs:
        from ftlint.runtime.handlers import abort_all_evicting_tail

        abort_all_evicting_tail(sched)  # calls finish_requests in this thread
    assert obs.report.cannot_verify == [] and obs.report.ok()
