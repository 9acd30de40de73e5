# Intended: buggy: the unconfirmed tail is evicted only on the abort path; on the resume path the requests are requeued with their dirty tail blocks still in the prefix cache, so the resumed request itself gets a prefix hit on KV that was never computed.
# Idioms: padded numpy block table per group (np.full with -1), broadcast mask cols >= first[:, None] combined with table >= 0, np.unique, .tolist(), abort/resume switch with counters cleared after the preempt.
# switch: resume
"""Fault handler.  On resume the requests recompute from their confirmed point,
so only aborted requests need their tail blocks removed from the cache."""

from __future__ import annotations

import time

import numpy as np

from vllm.v1.request import RequestStatus


def _padded(rows):
    width = max((len(r) for r in rows), default=0)
    table = np.full((len(rows), width), -1, dtype=np.int64)
    for i, row in enumerate(rows):
        table[i, : len(row)] = row
    return table


class FaultHandler:
    resume = False

    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        reqs = list(sched.running)
        if not reqs:
            return
        if self.resume:
            now = time.monotonic()
            for req in reversed(reqs):
                sched.running.remove(req)
                sched._preempt_request(req, now)
                req.num_in_flight_tokens = 0
                req.num_stale_output_tokens = 0
            return

        kvm = sched.kv_cache_manager
        confirmed = np.array(
            [r.num_computed_tokens - r.num_in_flight_tokens for r in reqs], dtype=np.int64
        )
        found = []
        for mgr in kvm.coordinator.single_type_managers:
            table = _padded(
                [[b.block_id for b in mgr.req_to_blocks.get(r.request_id, ())] for r in reqs]
            )
            cols = np.arange(table.shape[1])
            mask = (cols[None, :] >= (confirmed // mgr.block_size)[:, None]) & (table >= 0)
            found.append(table[mask])
        dirty = np.unique(np.concatenate(found))
        if dirty.size:
            kvm.evict_blocks(set(dirty.tolist()))
        aborted = sched.finish_requests(
            [r.request_id for r in reqs], RequestStatus.FINISHED_ABORTED
        )
        self.engine._send_abort_outputs(aborted)
