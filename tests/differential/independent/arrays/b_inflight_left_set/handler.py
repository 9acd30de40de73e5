# Intended: buggy: on the resume path only num_stale_output_tokens is cleared after the preempt and num_in_flight_tokens keeps the lost step's count, so the resumed request's confirmed boundary (num_computed_tokens - num_in_flight_tokens) is off by the tokens of the failed step.
# Idioms: per-group numpy tails with np.arange(n) >= first, set union, vectorised reset of a counter through a dict of numpy zeros applied with setattr, abort/resume switch.
# switch: resume
"""Fault handler: evict the unconfirmed tail, then abort or requeue."""

from __future__ import annotations

import time

import numpy as np

from vllm.v1.request import RequestStatus

# counters the preempt leaves holding output of the lost step
_RESET_AFTER_PREEMPT = ("num_stale_output_tokens",)


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        reqs = list(sched.running)
        if not reqs:
            return
        kvm = sched.kv_cache_manager
        confirmed = np.array(
            [r.num_computed_tokens - r.num_in_flight_tokens for r in reqs], dtype=np.int64
        )
        doomed: set[int] = set()
        for mgr in kvm.coordinator.single_type_managers:
            for r, f in zip(reqs, confirmed // mgr.block_size):
                ids = np.array(
                    [b.block_id for b in mgr.req_to_blocks.get(r.request_id, ())],
                    dtype=np.int64,
                )
                doomed.update(ids[np.arange(ids.size) >= f].tolist())
        if doomed:
            kvm.evict_blocks(doomed)

        if not self.resume:
            aborted = sched.finish_requests(
                [r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(aborted)
            return

        now = time.monotonic()
        while sched.running:
            sched._preempt_request(sched.running.pop(), now)
        zeros = np.zeros(len(reqs), dtype=np.int64)
        for name in _RESET_AFTER_PREEMPT:
            for r, z in zip(reqs, zeros.tolist()):
                setattr(r, name, z)
