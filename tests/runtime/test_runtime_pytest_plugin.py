"""The pytest plugin (pytest11 entry point), run in pytester sub-sessions."""

from __future__ import annotations

import textwrap

import pytest

pytest_plugins = ["pytester"]
# The sub-sessions decide for themselves; keep an outer --ftlint-verify out.
pytestmark = pytest.mark.ftlint_verify(False)

INNER = """
import pytest
from ftlint.runtime import vllm_cpu as h
from vllm.v1.fault_tolerance.engine_core_sentinel import EngineCoreSentinel

P = h.prompt_tokens(1, 47)

def test_bad_on_fault_swallowed_by_engine():
    s = h.build_scheduler()
    h.prefill_fault(s, {"r0": P})
    try:  # an engine that catches whatever its fault handler raises
        h.make_sentinel(s).on_fault(RuntimeError("collective failed"))
    except Exception:
        pass

def test_bad_on_fault_raises_in_test():
    s = h.build_scheduler()
    h.prefill_fault(s, {"r0": P})
    h.make_sentinel(s).on_fault(RuntimeError("collective failed"))

def test_on_fault_with_nothing_dirty():
    s = h.build_scheduler()
    h.make_sentinel(s).on_fault(RuntimeError("idle engine"))

def test_good_custom_handler():
    import goodft
    s = h.build_scheduler()
    h.decode_fault(s, {"r0": P})
    goodft.GoodSentinel(s).on_fault(RuntimeError())
    assert h.prefix_hit(s, P + [147, 5]) == 32

def test_wrapped():
    assert getattr(EngineCoreSentinel.on_fault, "__ftlint_wrapped__", False)
"""

GOODFT = """
from ftlint.runtime.handlers import abort_all_evicting_tail

class GoodSentinel:
    def __init__(self, scheduler):
        self.scheduler = scheduler
    def on_fault(self, exc):
        abort_all_evicting_tail(self.scheduler)
"""


@pytest.fixture
def inner(pytester, vllm_ready):
    pytester.makepyfile(test_inner=INNER, goodft=GOODFT)
    pytester.syspathinsert()
    return pytester


def test_plugin_fails_bad_on_fault_and_passes_good(inner):
    result = inner.runpytest(
        "--ftlint-verify", "--ftlint-verify-target", "goodft:GoodSentinel.on_fault", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=3, failed=2)
    out = result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "ftlint: verifying fault handlers: *EngineCoreSentinel.on_fault, goodft:GoodSentinel.on_fault",
            "*the engine swallowed the error*",
            "*FTR01 dirty-block-cached: request 'r0', group 0, block 1, tokens [[]0, 16)*",
        ]
    )
    assert "FAILED test_inner.py::test_bad_on_fault_swallowed_by_engine" in out
    assert "FAILED test_inner.py::test_bad_on_fault_raises_in_test" in out
    assert "FaultInvariantError" in out


def test_plugin_ini_option_and_marker(inner):
    inner.makeini("[pytest]\nftlint_verify = true\n")
    inner.makepyfile(
        test_optout=textwrap.dedent("""
        import pytest
        from ftlint.runtime import vllm_cpu as h

        @pytest.mark.ftlint_verify(False)
        def test_bad_on_purpose():
            s = h.build_scheduler(); h.prefill_fault(s, {"r0": h.prompt_tokens(1, 47)})
            h.make_sentinel(s).on_fault(RuntimeError())
    """)
    )
    result = inner.runpytest("-k", "bad", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=2, passed=1)


def test_marker_and_fixture_for_single_tests(pytester, vllm_ready):
    pytester.makepyfile(
        test_marked=textwrap.dedent("""
        import pytest
        from ftlint.runtime import vllm_cpu as h
        P = h.prompt_tokens(1, 47)

        @pytest.mark.ftlint_verify
        def test_marked():
            s = h.build_scheduler(); h.prefill_fault(s, {"r0": P})
            try:
                h.make_sentinel(s).on_fault(RuntimeError())
            except Exception:
                pass

        def test_fixture(ft_verifier):
            assert ft_verifier.active
            s = h.build_scheduler(); h.decode_fault(s, {"r0": P})
            from ftlint.runtime.handlers import resume_all_evicting_tail
            with ft_verifier.verify(s, strict=True) as report:
                resume_all_evicting_tail(s)
            assert report.ok(strict=True)
            h.make_sentinel(h.build_scheduler()).on_fault(RuntimeError())
            assert len(ft_verifier.reports) == 1

        def test_unmarked_is_not_verified():
            s = h.build_scheduler(); h.prefill_fault(s, {"r0": P})
            h.make_sentinel(s).on_fault(RuntimeError())
    """)
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    assert "FAILED test_marked.py::test_marked" in result.stdout.str()


def test_without_flag_nothing_is_wrapped(inner):
    result = inner.runpytest("-p", "no:cacheprovider")
    # the bad handlers pass unverified, and on_fault is vLLM's own function
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(["FAILED test_inner.py::test_wrapped*"])
    assert "ftlint:" not in result.stdout.str()
    from vllm.v1.fault_tolerance.engine_core_sentinel import EngineCoreSentinel

    assert not getattr(EngineCoreSentinel.on_fault, "__ftlint_wrapped__", False)


def test_without_vllm_plugin_loads_and_says_so_only_when_asked(pytester, monkeypatch):
    fake = pytester.mkdir("novllm")
    (fake / "vllm").mkdir()
    (fake / "vllm" / "__init__.py").write_text("raise ImportError('vllm hidden for this test')\n")
    monkeypatch.setenv("PYTHONPATH", str(fake))
    pytester.makepyfile(test_plain="def test_ok():\n    import ftlint.runtime\n")
    quiet = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    quiet.assert_outcomes(passed=1)
    assert "vLLM" not in quiet.stdout.str()
    asked = pytester.runpytest_subprocess("--ftlint-verify", "-p", "no:cacheprovider")
    asked.assert_outcomes(passed=1)
    asked.stdout.fnmatch_lines(["ftlint: --ftlint-verify: vLLM is not importable*"])


def test_plugin_module_imports_nothing_heavy(pytester):
    pytester.makepyfile(
        test_light="""
        import sys
        def test_light():
            assert "ftlint.runtime.pytest_plugin" in sys.modules
            assert "vllm" not in sys.modules and "torch" not in sys.modules
    """
    )
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
