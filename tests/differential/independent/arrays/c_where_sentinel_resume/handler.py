# Intended: correct.
# Idioms: a frozen dataclass snapshot of the batch as parallel numpy arrays, np.where replacing clean columns with a -1 sentinel and dropping sentinels afterwards, zip of parallel arrays, resume only (requests preempted back to waiting with in-flight and stale counters cleared).
"""Resume-only fault handler: requests go back to the waiting queue and later
re-hit their own clean prefix; the unconfirmed tail is evicted first."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

SENTINEL = -1


@dataclass(frozen=True)
class BatchView:
    requests: tuple
    computed: np.ndarray
    in_flight: np.ndarray

    @classmethod
    def of(cls, requests) -> "BatchView":
        reqs = tuple(requests)
        return cls(
            reqs,
            np.fromiter((r.num_computed_tokens for r in reqs), np.int64, len(reqs)),
            np.fromiter((r.num_in_flight_tokens for r in reqs), np.int64, len(reqs)),
        )

    @property
    def confirmed(self) -> np.ndarray:
        return self.computed - self.in_flight


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        view = BatchView.of(sched.running)
        if not view.requests:
            return
        kvm = sched.kv_cache_manager
        groups = kvm.get_block_ids  # request_id -> tuple of per-group id lists
        sizes = np.array(
            [m.block_size for m in kvm.coordinator.single_type_managers], dtype=np.int64
        )

        doomed: list[int] = []
        for req, confirmed in zip(view.requests, view.confirmed):
            first = confirmed // sizes  # first dirty block index, one per group
            for ids, f in zip(groups(req.request_id), first):
                ids = np.asarray(ids, dtype=np.int64)
                tail = np.where(np.arange(ids.size) >= f, ids, SENTINEL)
                doomed.extend(tail[tail != SENTINEL].tolist())
        if doomed:
            kvm.evict_blocks(set(doomed))

        now = time.monotonic()
        while sched.running:
            req = sched.running.pop()
            sched._preempt_request(req, now)
            req.num_in_flight_tokens = 0
            req.num_stale_output_tokens = 0
