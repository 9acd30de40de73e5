"""Verification that follows vLLM into the processes it starts (ftlint.runtime.procs).

The children are started as vLLM starts engine cores (multiprocessing, spawn method) and call
``vllm.plugins.load_general_plugins()`` as vLLM's EngineCore does; the handler is vLLM's real
``EngineCoreSentinel.on_fault`` over the real CPU scheduler.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.ftlint_verify(False)  # the sub-sessions decide for themselves

CHILD = """
import os
import signal

def run(kind, dp_rank=None, kill=False):
    from ftlint.runtime import vllm_cpu as h
    h.setup()
    from vllm.plugins import load_general_plugins
    load_general_plugins()  # as vLLM's EngineCore.__init__ does, in the engine-core process
    s = h.build_scheduler()
    if dp_rank is not None:
        s.vllm_config.parallel_config.data_parallel_size = 2
        s.vllm_config.parallel_config.data_parallel_rank = dp_rank
    h.prefill_fault(s, {"r0": h.prompt_tokens(1, 47)})
    sentinel = h.make_sentinel(s) if kind == "bad" else GoodSentinel(s)
    try:  # the engine's busy loop swallows what its handler raises
        sentinel.on_fault(RuntimeError("collective failed"))
    except Exception:
        pass
    if kill:
        os.kill(os.getpid(), signal.SIGKILL)

class GoodSentinel:
    def __init__(self, scheduler):
        self.scheduler = scheduler
    def on_fault(self, exc):
        from ftlint.runtime.handlers import abort_all_evicting_tail
        abort_all_evicting_tail(self.scheduler)
"""

INNER = """
import multiprocessing
import childft

def start(*args, **kwargs):
    p = multiprocessing.get_context("spawn").Process(target=childft.run, args=args, kwargs=kwargs)
    p.start()
    return p

def test_bad_handler_in_child():
    p = start("bad")
    p.join(120)
    assert p.exitcode == 0

def test_good_handler_in_child():
    p = start("good")
    p.join(120)
    assert p.exitcode == 0

def test_two_dp_ranks_one_bad():
    ps = [start("good", dp_rank=0), start("bad", dp_rank=1)]
    for p in ps:
        p.join(120)
    assert [p.exitcode for p in ps] == [0, 0]

def test_child_killed_after_reporting():
    p = start("bad", kill=True)
    p.join(120)
    assert p.exitcode == -9
"""


def test_child_processes_report_to_the_test_that_ran_them(pytester, vllm_ready):
    pytester.makepyfile(test_inner=INNER, childft=CHILD)
    pytester.syspathinsert()
    result = pytester.runpytest(
        "--ftlint-verify", "--ftlint-verify-target", "childft:GoodSentinel.on_fault", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=1, failed=3)
    out = result.stdout.str()
    assert "FAILED test_inner.py::test_bad_handler_in_child" in out
    assert "FAILED test_inner.py::test_two_dp_ranks_one_bad" in out
    assert "FAILED test_inner.py::test_child_killed_after_reporting" in out
    assert "test_good_handler_in_child FAILED" not in out
    result.stdout.fnmatch_lines(
        [
            "*a fault handler in another process broke an invariant during call*",
            "*EngineCoreSentinel.on_fault (process * on *, DP rank 1)*",
            "*FTR01 dirty-block-cached: request 'r0', group 0, block 1*",
        ]
    )
    assert "DP rank 0)" not in out  # the good rank is not blamed
    assert "DP rank unknown)" in out  # the single-engine children: no data parallelism


WRAPPED = (
    "from ftlint.runtime import vllm_cpu as h; h.setup()\n"
    "from vllm.plugins import load_general_plugins; load_general_plugins()\n"
    "from vllm.v1.fault_tolerance.engine_core_sentinel import EngineCoreSentinel as S\n"
    "import ftlint.runtime.procs as p, ftlint.runtime.wrap as w\n"
    "print(getattr(S.on_fault, '__ftlint_wrapped__', False), p._RECORDER is not None, len(w.ACTIVE))\n"
)


@pytest.mark.parametrize("sink", [False, True], ids=["no-variable", "variable-set"])
def test_general_plugin_wraps_only_when_the_variable_is_set(vllm_ready, tmp_path, sink):
    env = {k: v for k, v in os.environ.items() if not k.startswith("FTLINT_VERIFY")}
    if sink:
        env["FTLINT_VERIFY_SINK"] = str(tmp_path)
    proc = subprocess.run([sys.executable, "-c", WRAPPED], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[-2] == ("True True 1" if sink else "False False 0")
    assert list(tmp_path.iterdir()) == []  # nothing to report: no file is even created


TEARDOWN = """
import multiprocessing
import os
import time

import pytest

import childft

def after_go(go):
    while not os.path.exists(go):  # reports only once the test body is over
        time.sleep(0.05)
    childft.run("bad")

@pytest.fixture
def engine(tmp_path):
    go = str(tmp_path / "go")
    p = multiprocessing.get_context("spawn").Process(target=after_go, args=(go,))
    p.start()
    yield
    open(go, "w").close()
    p.join(120)

def test_fault_handled_while_tearing_down(engine):
    pass
"""


def test_record_written_during_teardown_fails_the_teardown(pytester, vllm_ready):
    pytester.makepyfile(test_inner=TEARDOWN, childft=CHILD)
    pytester.syspathinsert()
    result = pytester.runpytest("--ftlint-verify", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_fault_handled_while_tearing_down*",
            "*a fault handler in another process broke an invariant during teardown*",
            "*FTR01 dirty-block-cached*",
        ]
    )


LATE_CONFTEST = """
import multiprocessing
import os

GO = os.path.abspath("go")

def pytest_sessionfinish(session):  # runs before ftlint's (trylast): the child outlives the tests
    open(GO, "w").close()
    for p in multiprocessing.active_children():
        p.join(120)
"""

LATE = """
import multiprocessing

from test_inner_teardown import after_go
from conftest import GO

def test_starts_an_engine_and_leaves():
    multiprocessing.get_context("spawn").Process(target=after_go, args=(GO,)).start()
"""


def test_record_written_after_the_last_test_fails_the_session(pytester, vllm_ready):
    pytester.makepyfile(test_inner_teardown=TEARDOWN, childft=CHILD, test_late=LATE)
    pytester.makeconftest(LATE_CONFTEST)
    pytester.syspathinsert()
    result = pytester.runpytest("--ftlint-verify", "-p", "no:cacheprovider", "test_late.py")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*ftlint: fault-handler violations reported after the last test*",
            "*EngineCoreSentinel.on_fault (process * on *, DP rank unknown)*",
            "*FTR01 dirty-block-cached*",
        ]
    )
