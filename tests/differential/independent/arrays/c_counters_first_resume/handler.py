# Intended: correct.
# Idioms: generator of (group, ids, mask) triples, functools.reduce of np.union1d over groups, boundary vector computed once up front from parallel arrays, null blocks masked out via is_null, in-flight counter cleared before the preempt (so the preempt copies a zero into the stale counter), resume only.
"""Resume handler: evict the unconfirmed tail in every KV-cache group, then put
each running request back in the waiting queue with no pending stale output."""

from __future__ import annotations

import functools
import time

import numpy as np


def _group_tails(kvm, rids, confirmed):
    for g, mgr in enumerate(kvm.coordinator.single_type_managers):
        first = confirmed // mgr.block_size
        for rid, f in zip(rids, first):
            blocks = mgr.req_to_blocks.get(rid, [])
            ids = np.array([b.block_id for b in blocks], dtype=np.int64)
            live = np.array([not b.is_null for b in blocks], dtype=bool)
            yield g, ids, (np.arange(ids.size) >= f) & live


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        reqs = list(sched.running)
        if not reqs:
            return
        rids = [r.request_id for r in reqs]
        computed = np.array([r.num_computed_tokens for r in reqs])
        in_flight = np.array([r.num_in_flight_tokens for r in reqs])
        confirmed = computed - in_flight  # read before any counter is touched

        kvm = sched.kv_cache_manager
        dirty = functools.reduce(
            np.union1d,
            (ids[mask] for _, ids, mask in _group_tails(kvm, rids, confirmed)),
            np.empty(0, dtype=np.int64),
        )
        if dirty.size:
            kvm.evict_blocks(set(dirty.astype(int).tolist()))

        now = time.monotonic()
        for req in reversed(reqs):
            req.num_in_flight_tokens = 0  # nothing of the lost step will come back
            sched.running.remove(req)
            sched._preempt_request(req, now)
