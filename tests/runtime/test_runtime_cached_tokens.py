"""ftlint.runtime.vllm_cpu.cached_tokens on both API generations of
``KVCacheManager.get_computed_blocks`` (a pair before vLLM 0.34, a triple in it)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.ftlint_verify(False)  # a fault handler vLLM ships runs here


def test_cached_tokens_on_the_installed_vllm(h, sched):
    prompt = h.prompt_tokens(1, 47)
    assert h.cached_tokens(sched, prompt) == 0
    h.decode_fault(sched, {"req-0": prompt})
    # two full prompt blocks are cached (and a third filled by the decode step)
    assert h.cached_tokens(sched, prompt) == 32
    assert h.cached_tokens(sched, h.prompt_tokens(2, 47)) == 0


def test_cached_tokens_reads_the_installed_return_shape(h, sched):
    prompt = h.prompt_tokens(1, 47)
    h.prefill_fault(sched, {"req-0": prompt})
    result = sched.kv_cache_manager.get_computed_blocks(h.make_request("x", prompt))
    assert len(result) in (2, 3) and result[1] == 32
    assert h.cached_tokens(sched, prompt) == 32


def test_cached_tokens_on_the_older_pair(h, sched, monkeypatch):
    """The pre-0.34 shape: the real manager's answer cut to (blocks, tokens)."""
    prompt = h.prompt_tokens(1, 47)
    h.prefill_fault(sched, {"req-0": prompt})
    kvm = sched.kv_cache_manager
    real = kvm.get_computed_blocks
    monkeypatch.setattr(kvm, "get_computed_blocks", lambda req, *a: tuple(real(req, *a))[:2])
    assert h.cached_tokens(sched, prompt) == 32
