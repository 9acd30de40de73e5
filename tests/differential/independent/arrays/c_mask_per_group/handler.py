# Intended: correct.
# Idioms: per-group numpy block table built with np.fromiter, boolean mask np.arange(n) >= first_dirty, vectorised floor division of the confirmed boundary over requests, .tolist() into a set before evict_blocks, abort through finish_requests.
"""Abort every running request after a failed step, without leaving KV that was
never computed in the prefix cache."""

from __future__ import annotations

import numpy as np

from vllm.v1.request import RequestStatus


class FaultHandler:
    def __init__(self, engine):
        self.engine = engine

    def on_fault(self, exc):
        sched = self.engine.scheduler
        running = list(sched.running)
        if not running:
            return
        self._evict_unconfirmed(sched, running)
        aborted = sched.finish_requests(
            [r.request_id for r in running], RequestStatus.FINISHED_ABORTED
        )
        self.engine._send_abort_outputs(aborted)

    @staticmethod
    def _evict_unconfirmed(sched, running):
        kvm = sched.kv_cache_manager
        computed = np.array([r.num_computed_tokens for r in running], dtype=np.int64)
        in_flight = np.array([r.num_in_flight_tokens for r in running], dtype=np.int64)
        confirmed = computed - in_flight

        dirty: set[int] = set()
        for mgr in kvm.coordinator.single_type_managers:
            first_dirty = confirmed // mgr.block_size  # one entry per request
            for req, first in zip(running, first_dirty):
                blocks = mgr.req_to_blocks.get(req.request_id, ())
                table = np.fromiter(
                    (b.block_id for b in blocks), dtype=np.int64, count=len(blocks)
                )
                mask = np.arange(table.size) >= first
                dirty.update(table[mask].tolist())
        if dirty:
            kvm.evict_blocks(dirty)
