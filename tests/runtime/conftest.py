"""Shared fixtures for the runtime verifier's tests: vLLM's real scheduler on CPU.

vLLM is imported once per session (about 10 s); each test builds its own small
scheduler (milliseconds after that).  No mocks of vLLM here: the vLLM-shaped fake
scheduler of test_runtime_reliability.py is the only stand-in.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from ftlint.runtime import handlers as good
from ftlint.runtime import vllm_cpu

PROMPT = vllm_cpu.prompt_tokens(1, 47)  # 2 full blocks + 15 tokens at block_size 16


@pytest.fixture(scope="session")
def vllm_ready():
    vllm_cpu.setup()  # fails (not skips) when vLLM is missing: it is always installed
    # Warm every code path once in this process, so that vLLM modules imported
    # lazily are loaded before any pytester sub-session snapshots sys.modules.
    for kw in ({}, {"async_scheduling": True}, {"groups": ("full", "sliding")}):
        s = vllm_cpu.build_scheduler(**kw)
        vllm_cpu.decode_fault(s, {"w": PROMPT})
        vllm_cpu.make_sentinel(s)
        good.abort_all_evicting_tail(s)  # a correct handler: fine under --ftlint-verify
        vllm_cpu.prefix_hit(s, PROMPT)
    return vllm_cpu


@pytest.fixture
def h(vllm_ready):
    """The CPU harness (ftlint.runtime.vllm_cpu)."""
    return vllm_ready


@pytest.fixture
def sched(h):
    return h.build_scheduler()


# -- fault handlers, good and bad, written against vLLM 0.34's scheduler API --


def evict_everything_then_abort(scheduler):
    """Over-eviction: drops every block of every running request, clean ones too."""
    from vllm.v1.request import RequestStatus

    ids = set()
    for req in scheduler.running:
        for mgr in scheduler.kv_cache_manager.coordinator.single_type_managers:
            ids |= {b.block_id for b in mgr.req_to_blocks.get(req.request_id, ()) if not b.is_null}
    scheduler.kv_cache_manager.evict_blocks(ids)
    scheduler.finish_requests(None, RequestStatus.FINISHED_ABORTED)


def resume_without_counter_reset(scheduler):
    """The fork's resume: evicts the tail, preempts, forgets the counters (hang)."""
    good.evict_unconfirmed_tail(scheduler)
    while scheduler.running:
        scheduler._preempt_request(scheduler.running.pop(), time.monotonic())


def resume_dropping_stale_output(scheduler):
    """Resume that copies reset_prefix_cache: drops the first good frame."""
    good.evict_unconfirmed_tail(scheduler)
    while scheduler.running:
        scheduler._preempt_request(scheduler.running.pop(), time.monotonic(), drop_stale_output=True)


def _retry_in_place(scheduler, record: bool):
    """Keeps every faulted request running with its blocks allocated: evicts the
    unconfirmed tail, rewinds to the block-aligned confirmed boundary and retries
    from there; records the rewound blocks for zeroing when ``record``."""
    kvm = scheduler.kv_cache_manager
    managers = kvm.coordinator.single_type_managers
    block_size = max(m.block_size for m in managers)
    requests = list(scheduler.running)
    aligned = {}
    for req in requests:
        confirmed = req.num_computed_tokens - req.num_in_flight_tokens
        aligned[req.request_id] = confirmed // block_size * block_size
    if record:  # aligned start, before anything changes
        for req in requests:
            kvm.record_blocks_for_zeroing(req.request_id, aligned[req.request_id])
    good.evict_unconfirmed_tail(scheduler, requests)
    for req in requests:
        start = aligned[req.request_id]
        req.num_computed_tokens = start
        req.num_in_flight_tokens = 0
        req.num_output_placeholders = 0
        for mgr in managers:
            if req.request_id in mgr.num_cached_block:
                mgr.num_cached_block[req.request_id] = min(
                    mgr.num_cached_block[req.request_id], start // mgr.block_size
                )


def retry_in_place_unrecorded(scheduler):
    _retry_in_place(scheduler, record=False)


def retry_in_place_recorded(scheduler):
    _retry_in_place(scheduler, record=True)


def underflow_placeholders(scheduler):
    """A late frame of a non-running request decremented unconditionally (old
    AsyncScheduler): num_output_placeholders goes negative."""
    for req in good.resume_all_evicting_tail(scheduler):
        req.num_output_placeholders -= 1


@pytest.fixture
def fh():
    """Fault handlers under test (bad ones, and the zeroing-correct retry)."""
    return SimpleNamespace(
        evict_everything_then_abort=evict_everything_then_abort,
        resume_without_counter_reset=resume_without_counter_reset,
        resume_dropping_stale_output=resume_dropping_stale_output,
        retry_in_place_unrecorded=retry_in_place_unrecorded,
        retry_in_place_recorded=retry_in_place_recorded,
        underflow_placeholders=underflow_placeholders,
    )


@pytest.fixture
def prompt():
    return list(PROMPT)
