"""Issue 6, runtime part: observe-only (property test on the real scheduler),
"cannot verify" on vLLM-like objects missing each field read, locks, and the
device check."""

from __future__ import annotations

import threading
import time
import warnings
from types import SimpleNamespace as NS  # noqa: N814 - short alias for the many vLLM-like stand-ins built below

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ftlint.runtime import (
    FaultVerificationWarning,
    assert_blocks_zeroed,
    check_fault_handling,
    observe_fault_handling,
    verify_fault_handling,
)
from ftlint.runtime import handlers as good

# These tests run bad fault handlers on purpose: opt out of --ftlint-verify.
pytestmark = pytest.mark.ftlint_verify(False)

# -- observe only: random real scheduler states ----------------------------------

HANDLERS = ["none", "sentinel", "abort_tail", "resume_tail", "evict_all", "resume_no_reset", "retry_unrecorded"]

ops = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.integers(0, 2), st.integers(1, 70)),
        st.tuples(st.just("step"), st.just(0), st.just(0)),
    ),
    min_size=1,
    max_size=8,
)


def _replay(h, fh, script, fail_last, zeroing, groups):
    sched = h.build_scheduler(num_blocks=64, zeroing=zeroing, groups=groups)
    n = 0
    for op, seed, length in script:
        if op == "add":
            n += 1
            # seeds 0-2 share prefixes, so blocks are shared between requests
            sched.add_request(h.make_request(f"q{n}", h.prompt_tokens(seed, length)))
        else:
            h.step(sched)
    if fail_last:
        h.step(sched, fail=True)
    return sched


def _run_handler(h, fh, sched, name):
    if name == "sentinel":
        h.make_sentinel(sched).on_fault(RuntimeError("x"))
    elif name == "abort_tail":
        good.abort_all_evicting_tail(sched)
    elif name == "resume_tail":
        good.resume_all_evicting_tail(sched)
    elif name == "evict_all":
        fh.evict_everything_then_abort(sched)
    elif name == "resume_no_reset":
        fh.resume_without_counter_reset(sched)
    elif name == "retry_unrecorded":
        fh.retry_in_place_unrecorded(sched)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    script=ops,
    fail_last=st.booleans(),
    zeroing=st.booleans(),
    two_groups=st.booleans(),
    handler=st.sampled_from(HANDLERS),
)
def test_verifier_leaves_state_identical(h, fh, script, fail_last, zeroing, two_groups, handler):
    groups = ("full", "full") if two_groups else ("full",)
    plain = _replay(h, fh, script, fail_last, zeroing, groups)
    watched = _replay(h, fh, script, fail_last, zeroing, groups)
    assert h.state_fingerprint(plain) == h.state_fingerprint(watched)

    _run_handler(h, fh, plain, handler)
    with observe_fault_handling(watched) as report:
        _run_handler(h, fh, watched, handler)

    assert h.state_fingerprint(watched) == h.state_fingerprint(plain)
    assert report.verified
    # and a later step behaves the same
    assert h.step(plain).num_scheduled_tokens == h.step(watched).num_scheduled_tokens


# -- cannot verify: vLLM-like objects missing each field the verifier reads -------


class Status:
    def __init__(self, name):
        self.name = name


class HashMap:
    def __init__(self):
        self.map = {}

    def contain(self, key, block_id):
        return self.map.get(key) == block_id


def fake_scheduler(zeroing=True):
    """A vLLM-0.34-shaped scheduler: one request, confirmed 16 of 32 tokens;
    block 1 clean and cached, block 2 dirty and cached."""
    cmap = HashMap()
    b1 = NS(block_id=1, block_hash=b"h1", is_null=False, ref_cnt=1)
    b2 = NS(block_id=2, block_hash=b"h2", is_null=False, ref_cnt=1)
    cmap.map = {b"h1": 1, b"h2": 2}
    pool = NS(cached_block_hash_to_block=cmap, cached_block_hashes_by_block={})
    mgr = NS(
        req_to_blocks={"r": [b1, b2]}, block_size=16, kv_cache_group_id=0, new_block_ids=[], records_new_block_ids=True
    )
    kvm = NS(
        coordinator=NS(single_type_managers=[mgr], block_pool=pool),
        block_pool=pool,
        kv_cache_config=NS(needs_kv_cache_zeroing=zeroing),
    )
    req = NS(
        request_id="r",
        num_computed_tokens=32,
        num_in_flight_tokens=16,
        status=Status("RUNNING"),
        num_stale_output_tokens=0,
        drop_stale_output=False,
        num_output_placeholders=0,
    )
    sched = NS(running=[req], requests={"r": req}, kv_cache_manager=kvm, needs_kv_cache_zeroing=zeroing)
    return sched, SimpleParts(req=req, b1=b1, b2=b2, mgr=mgr, pool=pool, kvm=kvm, cmap=cmap)


class SimpleParts(NS):
    pass


def good_fake_handler(sched, parts):
    """Correct: evict the dirty block, preempt with counters reset."""
    parts.cmap.map.pop(b"h2", None)
    if hasattr(parts.b2, "block_hash"):
        parts.b2.block_hash = None
    sched.running = []
    for blk in (parts.b1, parts.b2):  # preempt frees the blocks
        blk.ref_cnt = 0
    req = parts.req
    req.status = Status("PREEMPTED")
    for attr in ("num_in_flight_tokens", "num_stale_output_tokens"):
        if hasattr(req, attr):
            setattr(req, attr, 0)


def test_fake_scheduler_passes_when_complete():
    sched, parts = fake_scheduler()
    report = check_fault_handling(sched, good_fake_handler, sched, parts)
    assert report.ok(strict=True)
    assert (report.dirty_total, report.dirty_evicted, report.clean_total) == (1, 1, 1)
    sched, parts = fake_scheduler()
    report = check_fault_handling(sched, lambda: None)
    assert [v.code for v in report.violations] == ["FTR01", "FTR05"]


MISSING = [
    # (object, attribute, name the report must mention, checks that cannot run)
    ("sched", "running", "Scheduler.running", {"FTR01", "FTR03", "FTR04"}),
    ("sched", "kv_cache_manager", "Scheduler.kv_cache_manager", {"FTR01", "FTR02"}),
    ("kvm", "coordinator", "KVCacheManager.coordinator", {"FTR01"}),
    ("coordinator", "single_type_managers", "single_type_managers", {"FTR01"}),
    ("pool", "cached_block_hash_to_block", "cached_block_hash_to_block", {"FTR01"}),
    ("mgr", "req_to_blocks", "req_to_blocks", {"FTR01", "FTR02"}),
    ("mgr", "block_size", "block_size", {"FTR01"}),
    ("mgr", "new_block_ids", "new_block_ids", {"FTR05"}),
    ("req", "request_id", "Request.request_id", {"FTR01", "FTR03"}),
    ("req", "num_computed_tokens", "Request.num_computed_tokens", {"FTR01"}),
    ("req", "num_in_flight_tokens", "Request.num_in_flight_tokens", {"FTR01", "FTR03"}),
    ("req", "status", "Request.status", {"FTR03"}),
    ("req", "num_stale_output_tokens", "num_stale_output_tokens", {"FTR03"}),
    ("req", "num_output_placeholders", "Request.num_output_placeholders", {"FTR04"}),
    ("b2", "block_id", "KVCacheBlock.block_id", {"FTR01"}),
    ("b2", "block_hash", "KVCacheBlock.block_hash", {"FTR01"}),
    ("b2", "is_null", "KVCacheBlock.is_null", {"FTR01"}),
    ("b2", "ref_cnt", "KVCacheBlock.ref_cnt", {"FTR05"}),
    ("zeroing-flag", "needs_kv_cache_zeroing", "needs_kv_cache_zeroing", {"FTR05"}),
]


@pytest.mark.parametrize("owner,attr,mention,blocked", MISSING, ids=[f"{o}.{a}" for o, a, _, _ in MISSING])
def test_missing_field_reports_cannot_verify(owner, attr, mention, blocked):
    sched, parts = fake_scheduler()
    if owner == "zeroing-flag":
        del sched.needs_kv_cache_zeroing
        del parts.kvm.kv_cache_config.needs_kv_cache_zeroing
    else:
        target = {"sched": sched, "coordinator": parts.kvm.coordinator}.get(owner) or getattr(parts, owner)
        delattr(target, attr)

    def handler():
        # a handler that keeps the dirty block allocated, so FTR05 must look at it
        parts.cmap.map.pop(b"h2", None)
        if hasattr(parts.b2, "block_hash"):
            parts.b2.block_hash = None
        if hasattr(sched, "running"):
            sched.running = []
        if hasattr(parts.req, "status"):
            parts.req.status = Status("PREEMPTED")
        for a in ("num_in_flight_tokens", "num_stale_output_tokens"):
            if hasattr(parts.req, a):
                setattr(parts.req, a, 0)
        parts.mgr.__dict__.get("new_block_ids", []).append(2)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with verify_fault_handling(sched, strict=True) as report:  # must not raise
            handler()
    assert not report.verified
    text = "\n".join(report.cannot_verify)
    assert mention in text
    reported = {line.split()[0] for line in report.cannot_verify}
    assert reported & blocked, text
    assert report.violations == []  # no false violation either
    assert any(issubclass(w.category, FaultVerificationWarning) for w in caught)


def test_old_generation_async_tokens_to_discard():
    sched, parts = fake_scheduler(zeroing=False)
    del parts.req.num_stale_output_tokens
    del parts.req.drop_stale_output
    parts.req.async_tokens_to_discard = 0

    def handler():
        good_fake_handler(sched, parts)
        parts.req.async_tokens_to_discard = 1  # the fork's copied line

    report = check_fault_handling(sched, handler)
    assert report.verified
    (v,) = report.violations
    assert v.code == "FTR03" and "async_tokens_to_discard=1" in v.explanation


def test_plain_dict_cache_map_of_old_vllm():
    sched, parts = fake_scheduler(zeroing=False)
    old_map = {b"h1": {1: parts.b1}, b"h2": {2: parts.b2}}
    parts.pool.cached_block_hash_to_block = old_map
    report = check_fault_handling(sched, lambda: None)
    assert [v.code for v in report.violations] == ["FTR01"]
    old_map.pop(b"h2")
    sched, parts = fake_scheduler(zeroing=False)
    parts.pool.cached_block_hash_to_block = {b"h1": {1: parts.b1}, b"h2": {2: parts.b2}}
    report = check_fault_handling(sched, lambda: parts.pool.cached_block_hash_to_block.pop(b"h2"))
    assert report.verified and report.violations == []


def test_verifier_never_crashes_on_hostile_objects():
    class Explodes:
        @property
        def running(self):
            raise RuntimeError("renamed in vLLM 9.9")

    report = check_fault_handling(Explodes(), lambda: None)
    assert not report.verified and "Scheduler.running" in report.cannot_verify[0]
    report = check_fault_handling(object(), lambda: None)
    assert not report.verified


# -- locks and threads ---------------------------------------------------------------


def test_handler_lock_is_taken_around_snapshot_and_checks_not_during(h, prompt):
    sched = h.build_scheduler()
    h.prefill_fault(sched, {"r0": prompt})
    lock = threading.Lock()
    seen = []

    def handler():
        seen.append(lock.locked())  # the verifier does not hold it now
        with lock:  # the handler's own critical section works
            good.abort_all_evicting_tail(sched)

    with verify_fault_handling(sched, lock=lock) as report:
        handler()
    assert seen == [False] and report.ok() and not lock.locked()


def test_lock_held_elsewhere_is_cannot_verify_not_a_hang(h, prompt):
    sched = h.build_scheduler()
    h.prefill_fault(sched, {"r0": prompt})
    lock = threading.Lock()
    lock.acquire()  # e.g. the caller holds the handler's non-reentrant lock
    try:
        with (
            pytest.warns(FaultVerificationWarning, match="lock"),
            verify_fault_handling(sched, lock=lock, lock_timeout=0.05) as report,
        ):
            pass
    finally:
        lock.release()
    assert not report.verified and "lock" in report.cannot_verify[0]


def test_held_lock_costs_one_timeout_not_two(h, prompt):
    """Issue 16 item 15: the snapshot waits once; the checks, with no snapshot to check,
    do not wait again."""
    sched = h.build_scheduler()
    h.prefill_fault(sched, {"r0": prompt})
    lock = threading.Lock()
    timeout = 0.5
    ran = []
    lock.acquire()
    try:
        start = time.monotonic()
        with (
            pytest.warns(FaultVerificationWarning, match="lock"),
            verify_fault_handling(sched, lock=lock, lock_timeout=timeout) as report,
        ):
            ran.append(True)
            good.abort_all_evicting_tail(sched)
        waited = time.monotonic() - start
    finally:
        lock.release()
    assert ran == [True]
    assert timeout * 0.9 <= waited < timeout * 1.8, waited
    assert report.cannot_verify == [
        "snapshot: could not take the fault handler's lock within 0.5s (held elsewhere, or by this thread)"
    ]
    assert not report.verified and not report.violations


def test_asyncio_lock_is_cannot_verify_and_the_handler_runs(h, prompt):
    """An asyncio.Lock has no timed, blocking acquire: it was taken for one (acquire()
    returned an un-awaited coroutine, release() raised RuntimeError before the handler)."""
    import asyncio

    sched = h.build_scheduler()
    h.prefill_fault(sched, {"r0": prompt})
    lock = asyncio.Lock()
    ran = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no "coroutine was never awaited"
        with (
            pytest.warns(FaultVerificationWarning, match="asyncio|Lock"),
            verify_fault_handling(sched, lock=lock) as report,
        ):
            ran.append(True)
            good.abort_all_evicting_tail(sched)
    assert ran == [True] and not lock.locked()
    assert report.cannot_verify == [
        "snapshot: the fault handler's lock (Lock) is not a lock whose acquire(timeout=...) "
        "returns a bool (threading.Lock/RLock-like)"
    ]
    assert not report.verified


def test_rlock_is_accepted(h, prompt):
    sched = h.build_scheduler()
    h.prefill_fault(sched, {"r0": prompt})
    lock = threading.RLock()
    with verify_fault_handling(sched, lock=lock) as report:
        good.abort_all_evicting_tail(sched)
    assert report.ok() and report.verified and not report.cannot_verify


# -- device check -----------------------------------------------------------------


def test_assert_blocks_zeroed_on_cpu_tensors():
    import torch

    kv = torch.randn(8, 16, 2, 4)
    kv[2].zero_()
    kv[5].zero_()
    assert_blocks_zeroed(kv, [2, 5])
    with pytest.raises(AssertionError, match="block 3"):
        assert_blocks_zeroed(kv, [2, 3])
    stacked = torch.randn(2, 8, 16)  # [key/value, num_blocks, ...]
    stacked[:, 4].zero_()
    assert_blocks_zeroed({"layer.0": stacked}, {4}, block_dim=1)
    key, value = torch.zeros(8, 4), torch.ones(8, 4)  # a (key, value) pair
    with pytest.raises(AssertionError, match=r"layer\.1\[1\]: block 4"):
        assert_blocks_zeroed({"layer.1": (key, value)}, [4])
    with pytest.raises(IndexError):
        assert_blocks_zeroed(kv, [8])
    assert_blocks_zeroed(kv, [])


def test_assert_blocks_zeroed_names_layer_and_block_catches_nan_accepts_negative_zero():
    import torch

    layers = {f"layer.{i}": torch.zeros(2, 12, 16, 2, 4) for i in range(4)}  # vLLM's [2, blocks, ...]
    layers["layer.1"][:, 7] = -0.0
    assert_blocks_zeroed(layers, range(12), block_dim=1)  # -0.0 is zero
    layers["layer.2"][1, 9, 3, 1, 2] = 1e-30  # one value, in the value half
    with pytest.raises(AssertionError) as exc:
        assert_blocks_zeroed(layers, [0, 9, 11], block_dim=1)
    assert str(exc.value) == "KV cache pages not zeroed: layer.2: block 9"
    layers["layer.3"][0, 4, 0, 0, 0] = float("nan")
    with pytest.raises(AssertionError, match=r"layer\.2: block 9, layer\.3: block 4$"):
        assert_blocks_zeroed(layers, [4, 9], block_dim=1)
    assert_blocks_zeroed(layers, [0, 5], block_dim=1)


def test_assert_blocks_zeroed_syncs_with_the_host_once(monkeypatch):
    import torch

    calls = []
    real = torch.Tensor.cpu
    monkeypatch.setattr(torch.Tensor, "cpu", lambda self, *a, **k: calls.append(1) or real(self, *a, **k))
    layers = [torch.zeros(8, 16, 4) for _ in range(5)]
    assert_blocks_zeroed(layers, [1, 2, 3])
    assert len(calls) == 1
