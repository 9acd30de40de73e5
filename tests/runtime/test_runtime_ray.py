"""Verification in a Ray task (vLLM's multi-node data-parallel backend): the sink's
variables travel in the task's runtime_env, the task loads vLLM's general plugins as a
vLLM worker does, and the bad handler it runs fails the test that started it."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.ftlint_verify(False)  # the sub-session decides for itself

INNER = """
import os
import sys

import pytest
import ray

@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the task travels by value
    yield
    ray.shutdown()

def run_on_fault(kind):
    from ftlint.runtime import vllm_cpu as h
    h.setup()
    from vllm.plugins import load_general_plugins
    load_general_plugins()  # as vLLM's workers do in every process they start
    s = h.build_scheduler()
    h.prefill_fault(s, {"r0": h.prompt_tokens(1, 47)})
    try:
        h.make_sentinel(s).on_fault(RuntimeError("collective failed"))
    except Exception:
        pass
    return os.getpid()

def test_bad_handler_in_a_ray_task(local_ray):
    env = {k: v for k, v in os.environ.items() if k.startswith("FTLINT_VERIFY")}
    task = ray.remote(run_on_fault).options(runtime_env={"env_vars": env}, num_cpus=1)
    assert ray.get(task.remote("bad"), timeout=240) != os.getpid()
"""


def test_ray_task_reports_to_the_test(pytester, vllm_ready):
    pytester.makepyfile(test_ray_inner=INNER)
    result = pytester.runpytest("--ftlint-verify", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*a fault handler in another process broke an invariant during call*",
            "*EngineCoreSentinel.on_fault (process * on *, DP rank unknown)*",
            "*FTR01 dirty-block-cached: request 'r0', group 0, block 1*",
        ]
    )
