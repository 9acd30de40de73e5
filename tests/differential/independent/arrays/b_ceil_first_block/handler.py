# Intended: buggy: the first dirty block is computed with np.ceil(confirmed / block_size), so when the confirmed boundary falls inside a block that partly-confirmed block (which the lost step was writing) is treated as clean and stays in the prefix cache.
# Idioms: float division and np.ceil over a vector of confirmed counts, astype(int) block indices, boolean mask np.arange(n) >= first, table[mask].tolist(), abort/resume switch.
# switch: resume_requests
"""Fault handler: evict blocks past the confirmed prefix, abort or requeue."""

from __future__ import annotations

import time

import numpy as np

from vllm.v1.request import RequestStatus


class FaultHandler:
    resume_requests = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        reqs = list(sched.running)
        if not reqs:
            return
        confirmed = np.array(
            [r.num_computed_tokens - r.num_in_flight_tokens for r in reqs], dtype=np.float64
        )
        kvm = sched.kv_cache_manager
        stale: set[int] = set()
        for mgr in kvm.coordinator.single_type_managers:
            # blocks fully covered by confirmed tokens are kept
            first = np.ceil(confirmed / mgr.block_size).astype(np.int64)
            for req, f in zip(reqs, first):
                ids = np.array(
                    [b.block_id for b in mgr.req_to_blocks.get(req.request_id, ())],
                    dtype=np.int64,
                )
                stale.update(ids[np.arange(ids.size) >= f].tolist())
        if stale:
            kvm.evict_blocks(stale)

        if self.resume_requests:
            now = time.monotonic()
            while sched.running:
                req = sched.running.pop()
                sched._preempt_request(req, now)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
        else:
            aborted = sched.finish_requests(
                [r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED
            )
            self.engine._send_abort_outputs(aborted)
