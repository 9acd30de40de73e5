"""KV-content mode (ftlint.runtime.kv_model, ftlint.runtime.kv_demo): a small
attention model's K/V in the pages vLLM's real scheduler assigned; the
verifier's FTR01 must agree with whether the next request's logits differ."""

from __future__ import annotations

import pytest

from ftlint import cli
from ftlint.runtime import demo, kv_demo
from ftlint.runtime.kv_model import TinyAttentionModel

# These tests run bad fault handlers on purpose: opt out of --ftlint-verify.
pytestmark = pytest.mark.ftlint_verify(False)

HANDLERS = ("vLLM on_fault (abort)", "abort, tail evicted", "resume, tail kept", "resume, tail evicted")


@pytest.fixture(scope="module")
def results(vllm_ready):
    return {(r.fault, r.cut, r.handler): r for r in kv_demo.run_kv_scenarios("cpu")}


def test_every_scenario_is_run(results):
    assert set(results) == {(f, c, h) for f in ("prefill", "decode") for c in kv_demo.CUTS for h in HANDLERS}


@pytest.mark.parametrize("fault", ["prefill", "decode"])
@pytest.mark.parametrize("cut", list(kv_demo.CUTS))
def test_vllm_on_fault_changes_the_next_requests_logits_and_ftr01_says_so(results, fault, cut):
    r = results[(fault, cut, "vLLM on_fault (abort)")]
    assert r.verified and r.ftr01
    assert r.differ and r.max_diff > 1e-3
    # the new request took the failed step's block from the prefix cache
    assert r.prefix_hit == {"prefill": 32, "decode": 48}[fault]


@pytest.mark.parametrize("fault", ["prefill", "decode"])
@pytest.mark.parametrize("cut", list(kv_demo.CUTS))
@pytest.mark.parametrize("handler", ["abort, tail evicted", "resume, tail evicted"])
def test_tail_eviction_leaves_the_logits_identical_and_ftr01_silent(results, fault, cut, handler):
    r = results[(fault, cut, handler)]
    assert r.verified and not r.ftr01
    assert r.max_diff <= 1e-5 and not r.differ


@pytest.mark.parametrize("fault", ["prefill", "decode"])
@pytest.mark.parametrize("cut", list(kv_demo.CUTS))
def test_a_resume_that_keeps_the_tail_reuses_stale_kv(results, fault, cut):
    r = results[(fault, cut, "resume, tail kept")]
    assert r.ftr01 and r.differ


def test_verdict_and_outputs_agree_in_every_scenario(results):
    assert all(r.agree and r.differ == r.expect_differ for r in results.values())


def test_pages_keep_their_previous_owners_kv():
    """A page is never cleared: what the forward did not write is what was there."""
    import torch

    model = TinyAttentionModel(device="cpu", seed=0)
    cache = model.new_cache(4, seed=1)
    before = [t.clone() for t in cache.layers]
    model.forward(cache, list(range(1, 11)), 0, [2], num_layers=1)  # 10 tokens into block 2, layer 0 only
    assert torch.equal(cache.layers[1], before[1])  # the cut layer wrote nothing
    assert torch.equal(cache.layers[0][:, :2], before[0][:, :2])  # other blocks untouched
    assert torch.equal(cache.layers[0][:, 2, 10:], before[0][:, 2, 10:])  # nor the rest of the block
    assert not torch.equal(cache.layers[0][:, 2, :10], before[0][:, 2, :10])


def test_a_prefix_read_back_through_the_block_table_gives_the_full_computation():
    model = TinyAttentionModel(device="cpu", seed=0)
    tokens = list(range(100, 140))
    full = model.forward(model.new_cache(8), tokens, 0, [5, 1, 6])[-1]
    cache = model.new_cache(8)
    model.forward(cache, tokens[:32], 0, [5, 1])  # the cached prefix, blocks 5 and 1
    rest = model.forward(cache, tokens[32:], 32, [5, 1, 6])[-1]
    assert float((full - rest).abs().max()) <= 1e-5


def test_ftlint_verify_demo_kv_prints_the_table(vllm_ready, capsys):
    assert cli.main(["verify", "--demo", "--kv", "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "KV-content mode on cpu" in out
    assert "FTR01 and the model agree in 16 of 16 scenarios" in out
    lines = [ln.split() for ln in out.splitlines() if ln.startswith("  prefill") or ln.startswith("  decode")]
    assert len(lines) == 16
    for row in lines:
        on_fault_or_kept = "on_fault" in row or "kept" in row
        assert row[-1] == "yes"
        assert row[-2] == ("differ" if on_fault_or_kept else "identical")


def test_device_cuda_without_cuda_is_a_clear_error(monkeypatch, capsys):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert demo.main(["--kv", "--device", "cuda"]) == 2
    assert "torch sees no CUDA device" in capsys.readouterr().err


def test_device_without_kv_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        demo.main(["--device", "cpu"])
    assert exc.value.code == 2
    assert "--device needs --kv" in capsys.readouterr().err
